import { isRecord } from '@svc/machinery';
import { COMPUTE_RESOURCE_NAMES, type ScopedResourceSelectorRequirement } from '../kinds/core/resource-quota';
import { records } from '../scheme/definitions/define-kind';
import { podQosClassOf } from '../scheme/definitions/pod-qos';
import type { ApiObject } from '../scheme/kind-definition';
import { objectCountQuotaResourceName, type QuotaEvaluator } from './quota-evaluator';
import { addLists, type ResourceList } from './resource-list';
import { podResources } from './pod-resources';

const POD_COUNT = objectCountQuotaResourceName('', 'pods');

/** The names quota counts of pods (podResources), besides huge pages and extended resources. */
const POD_RESOURCES = new Set([POD_COUNT, ...COMPUTE_RESOURCE_NAMES, 'pods']);

/** Resources a pod must state when a quota counts them (Kubernetes' validationSet, kept for compatibility). */
const MUST_STATE = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** Kubernetes' IsNativeResource: no domain, or a kubernetes.io one. */
function isNative(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** Kubernetes' IsExtendedResourceName: a domain of its own, not `requests.`, a qualified name. */
function isExtended(name: string): boolean {
  return !isNative(name) && !name.startsWith('requests.');
}

/** podComputeUsageHelper: a pod's (or container's) requests and limits as quota names them. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: '1' };
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (r in requests) {
      out[r] = requests[r];
      out[`requests.${r}`] = requests[r];
    }
    if (r in limits) out[`limits.${r}`] = limits[r];
  }
  for (const [name, value] of Object.entries(requests)) {
    if (name.startsWith('hugepages-')) {
      out[name] = value;
      out[`requests.${name}`] = value;
    }
    if (isExtended(name)) out[`requests.${name}`] = value;
  }
  return out;
}

/** isTerminating: an active deadline makes a pod end by itself. */
function isTerminating(pod: ApiObject): boolean {
  const deadline = isRecord(pod.spec) ? pod.spec.activeDeadlineSeconds : undefined;
  return typeof deadline === 'number' && deadline >= 0;
}

function crossNamespaceTerms(terms: unknown, weighted: boolean): boolean {
  return records(terms).some((t) => {
    const term = weighted ? (isRecord(t.podAffinityTerm) ? t.podAffinityTerm : {}) : t;
    return (Array.isArray(term.namespaces) && term.namespaces.length > 0) || term.namespaceSelector !== undefined;
  });
}

/** usesCrossNamespacePodAffinity. */
function usesCrossNamespaceAffinity(pod: ApiObject): boolean {
  const affinity = isRecord(pod.spec) && isRecord(pod.spec.affinity) ? pod.spec.affinity : {};
  return [affinity.podAffinity, affinity.podAntiAffinity].some(
    (a) =>
      isRecord(a) &&
      (crossNamespaceTerms(a.requiredDuringSchedulingIgnoredDuringExecution, false) ||
        crossNamespaceTerms(a.preferredDuringSchedulingIgnoredDuringExecution, true)),
  );
}

/** A PriorityClass scope selector over the pod's class, as a label selector over `{PriorityClass: name}`. */
function priorityClassMatches(pod: ApiObject, selector: ScopedResourceSelectorRequirement): boolean {
  const name = isRecord(pod.spec) && typeof pod.spec.priorityClassName === 'string' ? pod.spec.priorityClassName : '';
  const values = selector.values ?? [];
  switch (selector.operator) {
    case 'Exists':
      return name !== '';
    case 'DoesNotExist':
      return name === '';
    case 'In':
      return name !== '' && values.includes(name);
    case 'NotIn':
      return name === '' || !values.includes(name);
    default:
      return false;
  }
}

/**
 * QuotaV1Pod: a pod in a terminal phase, or past its deletion grace period (its node is lost, say),
 * uses no compute quota; it still counts as an object.
 */
function chargesCompute(pod: ApiObject, now: Date): boolean {
  const phase = isRecord(pod.status) ? pod.status.phase : undefined;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const deletedAt = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletedAt !== undefined && typeof grace === 'number') return now.getTime() <= Date.parse(deletedAt) + grace * 1000;
  return true;
}

/** Kubernetes' pod evaluator (pkg/quota/v1/evaluator/core/pods.go). */
export const podQuotaEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'pods',
  handles: (operation, subresource) => operation === 'CREATE' && subresource === '',
  matchingResources(names) {
    return names.filter(
      (n) => POD_RESOURCES.has(n) || n.startsWith('hugepages-') || n.startsWith('requests.hugepages-') || (!isNative(n) && n.startsWith('requests.')),
    );
  },
  matchesScope(selector, pod) {
    switch (selector.scopeName) {
      case 'Terminating':
        return isTerminating(pod);
      case 'NotTerminating':
        return !isTerminating(pod);
      case 'BestEffort':
        return podQosClassOf(pod as { spec?: unknown }) === 'BestEffort';
      case 'NotBestEffort':
        return podQosClassOf(pod as { spec?: unknown }) !== 'BestEffort';
      case 'PriorityClass':
        return priorityClassMatches(pod, selector);
      case 'CrossNamespacePodAffinity':
        return usesCrossNamespaceAffinity(pod);
      default:
        return false;
    }
  },
  usage(pod, now) {
    const count: ResourceList = { [POD_COUNT]: '1' };
    if (!chargesCompute(pod, now)) return count;
    return addLists(count, computeUsage(podResources(pod.spec, 'requests'), podResources(pod.spec, 'limits')));
  },
  constraints(required, pod) {
    const wanted = [...new Set(required.filter((r) => MUST_STATE.has(r)))].sort();
    if (wanted.length === 0) return undefined;
    const spec = isRecord(pod.spec) ? pod.spec : {};
    const missing = new Map<string, Set<string>>();
    for (const c of [...records(spec.containers), ...records(spec.initContainers)]) {
      const resources = isRecord(c.resources) ? c.resources : {};
      const stated = computeUsage(
        isRecord(resources.requests) ? (resources.requests as ResourceList) : {},
        isRecord(resources.limits) ? (resources.limits as ResourceList) : {},
      );
      for (const r of wanted) {
        if (!(r in stated)) {
          const names = missing.get(r) ?? new Set<string>();
          names.add(typeof c.name === 'string' ? c.name : '');
          missing.set(r, names);
        }
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

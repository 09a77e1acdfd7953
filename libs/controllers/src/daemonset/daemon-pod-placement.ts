import { isRecord } from '@svc/machinery';
import type { Pod, PodSpec } from '@svc/api';

/** The field a node selector term names a node by. */
const NODE_NAME_FIELD = 'metadata.name';

type Affinity = NonNullable<PodSpec['affinity']>;

/**
 * Kubernetes' ReplaceDaemonSetPodNodeNameNodeAffinity: the pod's required node affinity becomes the
 * one term `metadata.name In [nodeName]`, so that the scheduler binds it to that node and no other.
 * Its other affinities, and the preferred node affinity, are kept; the required terms of the
 * template are dropped, the controller having already checked that the node satisfies them.
 */
export function nodeNameAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const term = { matchFields: [{ key: NODE_NAME_FIELD, operator: 'In', values: [nodeName] }] };
  const base: Record<string, unknown> = isRecord(affinity) ? { ...affinity } : {};
  const nodeAffinity: Record<string, unknown> = isRecord(base.nodeAffinity) ? { ...base.nodeAffinity } : {};
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
  base.nodeAffinity = nodeAffinity;
  return base;
}

/**
 * Kubernetes' GetTargetNodeName: the node a daemon pod is bound to, or, before the scheduler binds
 * it, the node its `metadata.name In [one name]` term names; undefined when it names none.
 */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const affinity = pod.spec?.affinity;
  const nodeAffinity = isRecord(affinity) && isRecord(affinity.nodeAffinity) ? affinity.nodeAffinity : undefined;
  const required =
    nodeAffinity && isRecord(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)
      ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
      : undefined;
  const terms = required && Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  for (const term of terms) {
    if (!isRecord(term) || !Array.isArray(term.matchFields)) continue;
    for (const requirement of term.matchFields) {
      if (!isRecord(requirement) || requirement.key !== NODE_NAME_FIELD || requirement.operator !== 'In') continue;
      const values = Array.isArray(requirement.values) ? requirement.values : [];
      return values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
    }
  }
  return undefined;
}

import { canonicalQuantity, podResources, quantityMilliValue, quantityNanoValue, type LimitRange, type LimitRangeItem, type ResourceList } from '@svc/api';
import { isRecord, newForbidden } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { admittedName, podSpecOf } from './pod-admission';

/** What the LimitRanger plugin reads: a namespace's LimitRanges as stored now. */
export type LimitRangeLookup = (namespace: string) => Promise<readonly LimitRange[]>;

/** The annotation that says which defaults the plugin set. */
export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

type Kind = 'pod' | 'claim';

function kindOf(attributes: AdmissionAttributes): Kind | undefined {
  const def = attributes.definition.aliasOf ?? attributes.definition;
  if (attributes.subresource !== '' || def.group !== '') return undefined;
  // A pod's containers cannot change after creation: only its create is bounded and defaulted.
  if (def.resource === 'pods') return attributes.operation === 'CREATE' ? 'pod' : undefined;
  if (def.resource === 'persistentvolumeclaims') return attributes.operation === 'CREATE' || attributes.operation === 'UPDATE' ? 'claim' : undefined;
  return undefined;
}

const shown = (q: unknown): string => canonicalQuantity(q) ?? String(q);
const nanos = (q: unknown): bigint => quantityNanoValue(q) ?? 0n;
const sortedEntries = (list: ResourceList | undefined): [string, string | number][] =>
  Object.entries(list ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** minConstraint: a request is needed, and neither it nor the limit may be below the minimum. */
function minConstraint(type: string, name: string, enforced: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  if (!(name in requests)) return `minimum ${name} usage per ${type} is ${shown(enforced)}.  No request is specified`;
  if (nanos(requests[name]) < nanos(enforced)) return `minimum ${name} usage per ${type} is ${shown(enforced)}, but request is ${shown(requests[name])}`;
  if (name in limits && nanos(limits[name]) < nanos(enforced))
    return `minimum ${name} usage per ${type} is ${shown(enforced)}, but limit is ${shown(limits[name])}`;
  return undefined;
}

/** maxConstraint: a limit is needed, and neither it nor the request may be above the maximum. */
function maxConstraint(type: string, name: string, enforced: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  if (!(name in limits)) return `maximum ${name} usage per ${type} is ${shown(enforced)}.  No limit is specified`;
  if (nanos(limits[name]) > nanos(enforced)) return `maximum ${name} usage per ${type} is ${shown(enforced)}, but limit is ${shown(limits[name])}`;
  if (name in requests && nanos(requests[name]) > nanos(enforced))
    return `maximum ${name} usage per ${type} is ${shown(enforced)}, but request is ${shown(requests[name])}`;
  return undefined;
}

/** limitRequestRatioConstraint: the limit at most this many times the request, both stated and non-zero. */
function ratioConstraint(type: string, name: string, enforced: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const request = nanos(requests[name]);
  const limit = nanos(limits[name]);
  if (!(name in requests) || request === 0n)
    return `${name} max limit to request ratio per ${type} is ${shown(enforced)}, but no request is specified or request is 0`;
  if (!(name in limits) || limit === 0n) return `${name} max limit to request ratio per ${type} is ${shown(enforced)}, but no limit is specified or limit is 0`;
  const observed = Number(limit) / Number(request);
  if (observed * 1000 > (quantityMilliValue(enforced) ?? 0)) {
    return `${name} max limit to request ratio per ${type} is ${shown(enforced)}, but provided ratio is ${observed.toFixed(6)}`;
  }
  return undefined;
}

function bounded(item: LimitRangeItem, requests: ResourceList, limits: ResourceList, errors: string[]): void {
  const push = (e: string | undefined) => e !== undefined && errors.push(e);
  for (const [k, v] of sortedEntries(item.min)) push(minConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.max)) push(maxConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) push(ratioConstraint(item.type, k, v, requests, limits));
}

function containersOf(spec: Record<string, unknown>, field: 'containers' | 'initContainers'): Record<string, unknown>[] {
  return Array.isArray(spec[field]) ? (spec[field] as unknown[]).filter(isRecord) : [];
}

function resourcesOf(container: Record<string, unknown>): { requests: ResourceList; limits: ResourceList } {
  const r = isRecord(container.resources) ? container.resources : {};
  return { requests: isRecord(r.requests) ? (r.requests as ResourceList) : {}, limits: isRecord(r.limits) ? (r.limits as ResourceList) : {} };
}

/** PodValidateLimitFunc: each container within the Container bounds, the pod's totals within the Pod bounds. */
function podViolations(range: LimitRange, spec: Record<string, unknown>): string[] {
  const errors: string[] = [];
  for (const item of range.spec?.limits ?? []) {
    if (item.type === 'Container') {
      for (const c of [...containersOf(spec, 'containers'), ...containersOf(spec, 'initContainers')]) {
        const { requests, limits } = resourcesOf(c);
        bounded(item, requests, limits, errors);
      }
    } else if (item.type === 'Pod') {
      bounded(item, podResources(spec, 'requests'), podResources(spec, 'limits'), errors);
    }
  }
  return errors;
}

/** PersistentVolumeClaimValidateLimitFunc: the claim's requests within the PersistentVolumeClaim bounds. */
function claimViolations(range: LimitRange, claim: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const spec = isRecord(claim.spec) ? claim.spec : {};
  const requests = isRecord(spec.resources) && isRecord(spec.resources.requests) ? (spec.resources.requests as ResourceList) : {};
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min)) {
      const e = minConstraint(item.type, k, v, requests, {});
      if (e !== undefined) errors.push(e);
    }
    for (const [k, v] of sortedEntries(item.max)) {
      if (k in requests && nanos(requests[k]) > nanos(v))
        errors.push(`maximum ${k} usage per ${item.type} is ${shown(v)}, but request is ${shown(requests[k])}`);
    }
  }
  return errors;
}

/** defaultContainerResourceRequirements: the Container items' defaults (the last item of the type wins). */
function containerDefaults(range: LimitRange): { requests: ResourceList; limits: ResourceList } {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  return { requests, limits };
}

/** mergeContainerResources: fills what the container leaves out; says what it set. */
function mergeDefaults(container: Record<string, unknown>, defaults: { requests: ResourceList; limits: ResourceList }, label: string, notes: string[]): void {
  const resources = isRecord(container.resources) ? container.resources : (container.resources = {});
  const limits = isRecord(resources.limits) ? resources.limits : (resources.limits = {});
  const requests = isRecord(resources.requests) ? resources.requests : (resources.requests = {});
  const setLimits = Object.keys(defaults.limits).filter((k) => !(k in limits));
  const setRequests = Object.keys(defaults.requests).filter((k) => !(k in requests));
  for (const k of setLimits) limits[k] = defaults.limits[k];
  for (const k of setRequests) requests[k] = defaults.requests[k];
  if (Object.keys(limits).length === 0) delete resources.limits;
  if (Object.keys(requests).length === 0) delete resources.requests;
  const name = typeof container.name === 'string' ? container.name : '';
  if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${label} ${name}`);
  if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${label} ${name}`);
}

/** aggregate errors as Kubernetes prints them: one bare, several in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

/**
 * Kubernetes' LimitRanger admission plugin: a new pod's containers get the namespace's LimitRanges'
 * default requests and limits where they state none (and the `kubernetes.io/limit-ranger` annotation
 * saying so); pods and their containers outside the min, max or limit-to-request ratio, and claims
 * outside the storage bounds, are refused (403) with Kubernetes' messages.
 */
export function limitRangerAdmission(lookup: LimitRangeLookup): AdmissionPlugin {
  return {
    name: 'LimitRanger',
    async admit(attributes) {
      if (kindOf(attributes) !== 'pod' || attributes.object === undefined) return;
      const ranges = await lookup(attributes.namespace);
      if (ranges.length === 0) return;
      const spec = podSpecOf(attributes.object);
      for (const range of ranges) {
        const defaults = containerDefaults(range);
        if (Object.keys(defaults.requests).length === 0 && Object.keys(defaults.limits).length === 0) continue;
        const notes: string[] = [];
        for (const c of containersOf(spec, 'containers')) mergeDefaults(c, defaults, 'container', notes);
        for (const c of containersOf(spec, 'initContainers')) mergeDefaults(c, defaults, 'init container', notes);
        if (notes.length > 0) {
          const meta = (attributes.object.metadata ??= {});
          meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
        }
      }
    },
    async validate(attributes) {
      const kind = kindOf(attributes);
      if (kind === undefined || attributes.object === undefined) return;
      const ranges = await lookup(attributes.namespace);
      const errors: string[] = [];
      for (const range of ranges) {
        errors.push(...(kind === 'pod' ? podViolations(range, podSpecOf(attributes.object)) : claimViolations(range, attributes.object)));
      }
      if (errors.length > 0) throw newForbidden({ group: '', resource: attributes.definition.resource }, admittedName(attributes), aggregate(errors));
    },
  };
}

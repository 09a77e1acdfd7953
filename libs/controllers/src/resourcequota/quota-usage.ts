import {
  addLists,
  inQuotaScopes,
  maskList,
  objectCountQuotaEvaluator,
  quotaEvaluatorFor,
  specificQuotaEvaluators,
  type ApiObject,
  type QuotaEvaluator,
  type ResourceList,
  type ResourceQuota,
} from '@svc/api';

/** The objects of one resource in the quota's namespace; undefined when the resource is not served. */
export type NamespaceObjects = (group: string, resource: string) => Promise<readonly ApiObject[] | undefined>;

/** The legacy object count names and the core resources they count. */
const LEGACY_COUNTS: Readonly<Record<string, string>> = {
  configmaps: 'configmaps',
  secrets: 'secrets',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

/** `count/<resource>.<group>` split at the first dot: `deployments.apps` is deployments of apps, `pods` of the core group. */
function countedResource(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/**
 * The evaluators a quota's hard names need (quota.CalculateUsage's): the pod, service and claim
 * evaluators for the names they know, and an object count evaluator for every other counted resource.
 */
export function evaluatorsFor(hardNames: readonly string[]): QuotaEvaluator[] {
  const out: QuotaEvaluator[] = specificQuotaEvaluators().filter((e) => e.matchingResources(hardNames).length > 0);
  const covered = new Set(out.flatMap((e) => e.matchingResources(hardNames)));
  const extra = new Map<string, QuotaEvaluator>();
  for (const name of hardNames) {
    if (covered.has(name)) continue;
    const counted = countedResource(name) ?? (LEGACY_COUNTS[name] !== undefined ? { group: '', resource: LEGACY_COUNTS[name] } : undefined);
    if (counted === undefined) continue;
    const evaluator = quotaEvaluatorFor(counted.group, counted.resource) ?? objectCountQuotaEvaluator(counted.group, counted.resource);
    extra.set(`${counted.group}/${counted.resource}`, evaluator);
  }
  return [...out, ...extra.values()];
}

/**
 * What a quota's namespace uses now of each resource the quota limits (quota.CalculateUsage): zero
 * for each one its evaluators count, plus the usage of every object in the quota's scopes. Names no
 * evaluator knows are left out (Kubernetes leaves them unset too).
 */
export async function calculateQuotaUsage(quota: ResourceQuota, objects: NamespaceObjects, now: Date): Promise<ResourceList> {
  const hardNames = Object.keys(quota.spec?.hard ?? {});
  let used: ResourceList = {};
  for (const evaluator of evaluatorsFor(hardNames)) {
    const names = evaluator.matchingResources(hardNames);
    let sum: ResourceList = Object.fromEntries(names.map((n) => [n, '0']));
    for (const object of (await objects(evaluator.group, evaluator.resource)) ?? []) {
      if (!inQuotaScopes(quota, evaluator, object)) continue;
      sum = addLists(sum, maskList(evaluator.usage(object, now), names));
    }
    used = { ...used, ...sum };
  }
  return maskList(used, hardNames);
}

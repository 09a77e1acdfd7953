import type { ResourceQuota, ScopedResourceSelectorRequirement } from '../kinds/core/resource-quota';
import type { ApiObject } from '../scheme/kind-definition';
import { objectCountQuotaEvaluator } from './object-count-quota';
import { persistentVolumeClaimQuotaEvaluator } from './persistent-volume-claim-quota';
import { podQuotaEvaluator } from './pod-quota';
import type { QuotaEvaluator } from './quota-evaluator';
import { serviceQuotaEvaluator } from './service-quota';

/** The evaluators of their own; every other resource gets an object count evaluator. */
const SPECIFIC: readonly QuotaEvaluator[] = [podQuotaEvaluator, serviceQuotaEvaluator, persistentVolumeClaimQuotaEvaluator];

/** Resources quota never counts: virtual ones that are not stored, and events (Kubernetes' ignoredResources). */
const IGNORED: ReadonlySet<string> = new Set([
  '/bindings',
  '/events',
  'events.k8s.io/events',
  'authentication.k8s.io/tokenreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
]);

/** The evaluator of a resource (group as Kubernetes names it); undefined for the resources quota ignores. */
export function quotaEvaluatorFor(group: string, resource: string): QuotaEvaluator | undefined {
  if (IGNORED.has(`${group}/${resource}`)) return undefined;
  return SPECIFIC.find((e) => e.group === group && e.resource === resource) ?? objectCountQuotaEvaluator(group, resource);
}

/** The evaluators with names of their own, for the quota controller's monitors. */
export function specificQuotaEvaluators(): readonly QuotaEvaluator[] {
  return SPECIFIC;
}

/** A quota's scopes and scope selector as one list of requirements (getScopeSelectorsFromQuota). */
export function quotaScopeSelectors(quota: ResourceQuota): ScopedResourceSelectorRequirement[] {
  const fromScopes = (quota.spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' }));
  return [...fromScopes, ...(quota.spec?.scopeSelector?.matchExpressions ?? [])];
}

/** generic.Matches: the quota counts one of the evaluator's resources, and the object is in every scope it names. */
export function quotaMatches(quota: ResourceQuota, evaluator: QuotaEvaluator, object: ApiObject): boolean {
  if (evaluator.matchingResources(Object.keys(quota.status?.hard ?? {})).length === 0) return false;
  return quotaScopeSelectors(quota).every((selector) => evaluator.matchesScope(selector, object));
}

/** Whether an object is in every scope of the quota (for recalculating usage). */
export function inQuotaScopes(quota: ResourceQuota, evaluator: QuotaEvaluator, object: ApiObject): boolean {
  return quotaScopeSelectors(quota).every((selector) => evaluator.matchesScope(selector, object));
}

import type { ScopedResourceSelectorRequirement } from '../kinds/core/resource-quota';
import type { ApiObject } from '../scheme/kind-definition';
import type { ResourceList } from './resource-list';

/**
 * How quota measures one resource (Kubernetes' quota.Evaluator): which quota names it answers for,
 * which requests change usage, which scopes an object falls in, and what an object uses.
 */
export interface QuotaEvaluator {
  /** The resource's group as Kubernetes names it (`""`, `apps`, `rbac.authorization.k8s.io`). */
  readonly group: string;
  readonly resource: string;
  /** Whether a request of this operation on this subresource (`""` for the object) may change usage. */
  handles(operation: string, subresource: string): boolean;
  /** Of a quota's resource names, those this evaluator counts. */
  matchingResources(names: readonly string[]): string[];
  /** Whether `object` falls in the scope; kinds without scopes match none. */
  matchesScope(selector: ScopedResourceSelectorRequirement, object: ApiObject): boolean;
  /** What `object` uses now. */
  usage(object: ApiObject, now: Date): ResourceList;
  /** Why `object` cannot be admitted under a quota that counts `required`; undefined when it can. */
  constraints(required: readonly string[], object: ApiObject): string | undefined;
}

/** generic.MatchesNoScopeFunc: objects of kinds without scopes are in none. */
export const matchesNoScope = (): boolean => false;

/** `count/<resource>.<group>`, or `count/<resource>` in the core group (generic.ObjectCountQuotaResourceNameFor). */
export function objectCountQuotaResourceName(group: string, resource: string): string {
  return group === '' ? `count/${resource}` : `count/${resource}.${group}`;
}

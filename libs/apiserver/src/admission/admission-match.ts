import type { ApiObject, LabelSelector, RuleWithOperations } from '@svc/api';
import { LabelQuery, sameGroup } from '@svc/machinery';
import type { AdmissionAttributes } from './admission';
import type { NamespaceLookup } from './namespace-lifecycle';

function matchesAny(values: readonly string[] | undefined, value: string, same: (a: string, b: string) => boolean = (a, b) => a === b): boolean {
  return (values ?? []).some((v) => v === '*' || same(v, value));
}

/** Kubernetes' resource match: `pods`, `pods/status`, `*`, `*\/status`, `pods/*`, `*\/*`. */
function matchesResource(resources: readonly string[] | undefined, resource: string, subresource: string): boolean {
  return (resources ?? []).some((r) => {
    if (r === '*/*') return true;
    const [res, sub] = r.split('/', 2);
    if (sub === undefined) return subresource === '' && (res === '*' || res === resource);
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

/** Whether one rule (operations, groups, versions, resources, scope) covers the request. */
export function ruleMatches(rule: RuleWithOperations, attributes: AdmissionAttributes, matchPolicy: 'Exact' | 'Equivalent' = 'Equivalent'): boolean {
  const { definition } = attributes;
  if (!matchesAny(rule.operations, attributes.operation)) return false;
  // Equivalent: a group's two names (svc.io and k8s.io) are the same resource; Exact asks for the name the request used.
  if (!matchesAny(rule.apiGroups, definition.group, matchPolicy === 'Equivalent' ? sameGroup : undefined)) return false;
  if (!matchesAny(rule.apiVersions, definition.version)) return false;
  if (!matchesResource(rule.resources, definition.resource, attributes.subresource)) return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster' && definition.namespaced) return false;
  if (scope === 'Namespaced' && !definition.namespaced) return false;
  return true;
}

export function rulesMatch(rules: readonly RuleWithOperations[] | undefined, attributes: AdmissionAttributes, matchPolicy?: 'Exact' | 'Equivalent'): boolean {
  return (rules ?? []).some((r) => ruleMatches(r, attributes, matchPolicy));
}

function labelsOf(object: ApiObject | undefined): Record<string, string> {
  return object?.metadata?.labels ?? {};
}

/** objectSelector: the new object's labels or the old object's (either matching is a match, as in Kubernetes). */
export function objectSelectorMatches(selector: LabelSelector | undefined, attributes: AdmissionAttributes): boolean {
  if (selector === undefined) return true;
  const query = LabelQuery.fromLabelSelector(selector);
  return query.matches(labelsOf(attributes.object)) || (attributes.oldObject !== undefined && query.matches(labelsOf(attributes.oldObject)));
}

/**
 * namespaceSelector: the labels of the request's namespace; a Namespace is matched by its own labels,
 * and other cluster-scoped objects always match.
 */
export async function namespaceSelectorMatches(
  selector: LabelSelector | undefined,
  attributes: AdmissionAttributes,
  lookup: NamespaceLookup,
): Promise<boolean> {
  if (
    selector === undefined ||
    ((selector.matchLabels === undefined || Object.keys(selector.matchLabels).length === 0) && (selector.matchExpressions ?? []).length === 0)
  ) {
    return true;
  }
  const query = LabelQuery.fromLabelSelector(selector);
  const { definition } = attributes;
  if (definition.group === '' && definition.resource === 'namespaces') return query.matches(labelsOf(attributes.object ?? attributes.oldObject));
  if (attributes.namespace === '') return true;
  const namespace = await lookup(attributes.namespace);
  return query.matches(labelsOf(namespace));
}

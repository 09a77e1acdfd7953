import { storedNamespace, type PolicyRule } from '@svc/api';
import { sameGroup } from '@svc/machinery';
import type { AuthorizationAttributes } from '../authorizer';

const ALL = '*';

/** Kubernetes' RuleAllows: whether one rule grants the request. Group names match through their svc.io/k8s.io twins. */
export function ruleAllows(a: Omit<AuthorizationAttributes, 'user'>, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (a.isResourceRequest) {
    const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
    return (
      apiGroupMatches(rule, a.apiGroup) &&
      resourceMatches(rule, combined, a.subresource) &&
      resourceNameMatches(rule, a.name, a.resource === 'namespaces' && a.apiGroup === '')
    );
  }
  return nonResourceUrlMatches(rule, a.path);
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return (rule.verbs ?? []).some((v) => v === ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || sameGroup(g, group));
}

export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return (rule.resources ?? []).some((r) => r === ALL || r === combined || (subresource !== '' && r === `*/${subresource}`));
}

/** A namespace a rule names by its Kubernetes system name (`kube-system`) is the one stored under the spec's. */
export function resourceNameMatches(rule: PolicyRule, name: string, namespaces = false): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name) || (namespaces && names.some((n) => storedNamespace(n) === name));
}

export function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === ALL || u === path || (u.endsWith(ALL) && path.startsWith(u.slice(0, -1))));
}

/** The rules of an object (a stored Role or ClusterRole), read defensively: stored data is data. */
export function rulesOf(object: unknown): PolicyRule[] {
  const rules = (object as { rules?: unknown } | undefined)?.rules;
  if (!Array.isArray(rules)) return [];
  return rules.filter((r): r is PolicyRule => typeof r === 'object' && r !== null && Array.isArray((r as PolicyRule).verbs));
}

/**
 * Whether `owned` covers every request `requested` would allow (Kubernetes' validation.Covers, rule
 * by rule broken into single verb/group/resource/name grants).
 */
export function covers(owned: readonly PolicyRule[], requested: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    // A hostile rule's lists multiply: past the bound it is not broken down but reported uncovered.
    if (breakdownSize(rule) > MAX_BREAKDOWN) {
      missing.push(rule);
      continue;
    }
    for (const part of breakdown(rule)) {
      if (!owned.some((o) => ruleCovers(o, part))) missing.push(part);
    }
  }
  return { covered: missing.length === 0, missing };
}

/** How many single grants a rule may be broken into for the escalation check. */
export const MAX_BREAKDOWN = 100_000;

function breakdownSize(rule: PolicyRule): number {
  const n = (list: string[] | undefined) => Math.max(1, (list ?? []).length);
  const verbs = (rule.verbs ?? []).length;
  return verbs * (rule.nonResourceURLs ?? []).length + verbs * (rule.apiGroups ?? []).length * (rule.resources ?? []).length * n(rule.resourceNames);
}

// A rule broken into one rule per verb, group, resource and name, or per verb and URL; bounded by the rule's own lists.
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs ?? []) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] });
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        for (const name of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
      }
    }
  }
  return out;
}

// One owned rule against one broken-down requested rule.
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const has = (list: string[] | undefined, value: string) => (list ?? []).includes(ALL) || (list ?? []).includes(value);
  if (!(sub.verbs ?? []).every((v) => has(owner.verbs, v))) return false;
  if ((sub.nonResourceURLs ?? []).length > 0) {
    return sub.nonResourceURLs!.every((u) =>
      (owner.nonResourceURLs ?? []).some((o) => o === ALL || o === u || (o.endsWith(ALL) && u.startsWith(o.slice(0, -1)))),
    );
  }
  const groupsOk = (sub.apiGroups ?? []).every((g) => (owner.apiGroups ?? []).some((o) => o === ALL || sameGroup(o, g)));
  const resourcesOk = (sub.resources ?? []).every((r) => {
    const ownerResources = owner.resources ?? [];
    if (ownerResources.includes(ALL) || ownerResources.includes(r)) return true;
    const slash = r.indexOf('/');
    return slash >= 0 && ownerResources.includes(`*${r.slice(slash)}`);
  });
  const ownerNames = owner.resourceNames ?? [];
  const namesOk = ownerNames.length === 0 || ((sub.resourceNames ?? []).length > 0 && sub.resourceNames!.every((n) => ownerNames.includes(n)));
  return groupsOk && resourcesOk && namesOk;
}

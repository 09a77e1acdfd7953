import { storedNamespace, storedServiceAccountIdentity, type PolicyRule } from '@svc/api';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RuleResolver } from '../authorizer';
import type { UserInfo } from '@svc/machinery';
import { ruleAllows, rulesOf } from './policy-rules';

/** The stored RBAC objects, as plain data. */
export interface PolicyObjects {
  roles: readonly unknown[];
  clusterRoles: readonly unknown[];
  roleBindings: readonly unknown[];
  clusterRoleBindings: readonly unknown[];
}

/** Where the RBAC objects come from: the watch caches, read again only when `version()` changes. */
export interface PolicySource {
  /** Cheap: changes whenever any of the objects may have. */
  version(): string;
  read(): Promise<PolicyObjects>;
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface Binding {
  namespace: string;
  name: string;
  subjects: Subject[];
  roleRef: { kind: string; name: string };
}

interface Meta {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
}

/** The rules a user holds in a namespace, each with the binding that grants it (`grants[i]` for `rules[i]`). */
interface HeldRules {
  rules: PolicyRule[];
  grants: string[];
  errors: string[];
}

/** The objects indexed for lookups, built once per version of the source. */
class PolicyIndex {
  readonly clusterRoles = new Map<string, unknown>();
  readonly roles = new Map<string, unknown>();
  readonly clusterBindings: Binding[] = [];
  readonly bindingsByNamespace = new Map<string, Binding[]>();
  private readonly aggregated = new Map<string, PolicyRule[]>();
  // Rules per user (and namespace) already gathered; cleared with the index when anything changes.
  readonly memo = new Map<string, HeldRules>();

  constructor(objects: PolicyObjects) {
    for (const role of objects.clusterRoles) {
      const name = (role as Meta).metadata?.name;
      if (name !== undefined) this.clusterRoles.set(name, role);
    }
    for (const role of objects.roles) {
      const meta = (role as Meta).metadata;
      if (meta?.name !== undefined) this.roles.set(`${meta.namespace ?? ''}/${meta.name}`, role);
    }
    for (const object of objects.clusterRoleBindings) {
      const binding = toBinding(object);
      if (binding) this.clusterBindings.push(binding);
    }
    for (const object of objects.roleBindings) {
      const binding = toBinding(object);
      if (!binding) continue;
      let list = this.bindingsByNamespace.get(binding.namespace);
      if (list === undefined) this.bindingsByNamespace.set(binding.namespace, (list = []));
      list.push(binding);
    }
  }

  /** A ClusterRole's rules; an aggregated role's are the union of the roles its selectors pick (the aggregation controller's result). */
  clusterRoleRules(name: string): PolicyRule[] | undefined {
    const role = this.clusterRoles.get(name);
    if (role === undefined) return undefined;
    const selectors = (role as { aggregationRule?: { clusterRoleSelectors?: unknown } }).aggregationRule?.clusterRoleSelectors;
    if (!Array.isArray(selectors) || selectors.length === 0) return rulesOf(role);
    const cached = this.aggregated.get(name);
    if (cached) return cached;
    const rules = [...rulesOf(role)];
    for (const [otherName, other] of this.clusterRoles) {
      if (otherName === name) continue;
      const labels = (other as Meta).metadata?.labels ?? {};
      if (selectors.some((s) => selectorMatches(s, labels))) for (const rule of rulesOf(other)) rules.push(rule);
    }
    this.aggregated.set(name, rules);
    return rules;
  }
}

/** Kubernetes' RBAC authorizer: the union of the rules bound to the user, cluster-wide and in the request's namespace. */
export class RbacAuthorizer implements Authorizer, RuleResolver {
  readonly name = 'RBAC';
  private index: { version: string; index: PolicyIndex } | undefined;
  private loading: Promise<PolicyIndex> | undefined;

  constructor(private readonly source: PolicySource) {}

  async authorize(a: AuthorizationAttributes): Promise<AuthorizationResult> {
    const index = await this.current();
    const { rules, grants, errors } = this.userRules(index, a.user, a.namespace);
    for (let i = 0; i < rules.length; i++) if (ruleAllows(a, rules[i])) return { decision: 'allow', reason: `RBAC: allowed by ${grants[i]}` };
    return { decision: 'noOpinion', reason: errors.length > 0 ? `RBAC: ${errors.join(', ')}` : '' };
  }

  /** Every rule the user holds in `namespace` (cluster-wide ones included), for reviews and escalation checks. */
  async rulesHeld(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; errors: string[] }> {
    return this.userRules(await this.current(), user, namespace);
  }

  /** The rules of a Role (in `namespace`) or ClusterRole as RBAC resolves them; undefined when it does not exist. */
  async roleRules(kind: string, name: string, namespace: string): Promise<PolicyRule[] | undefined> {
    const index = await this.current();
    if (kind === 'ClusterRole') return index.clusterRoleRules(name);
    if (kind !== 'Role') return undefined;
    const role = index.roles.get(`${namespace}/${name}`);
    return role === undefined ? undefined : rulesOf(role);
  }

  async rulesFor(
    user: UserInfo,
    namespace: string,
  ): Promise<{ resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[]; incomplete: boolean; evaluationError?: string }> {
    const { rules, errors } = await this.rulesHeld(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const rule of rules) {
      if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs!] });
      if ((rule.resources ?? []).length > 0) {
        const out: ResourceRule = { verbs: [...rule.verbs], apiGroups: [...(rule.apiGroups ?? [])], resources: [...(rule.resources ?? [])] };
        if ((rule.resourceNames ?? []).length > 0) out.resourceNames = [...rule.resourceNames!];
        resourceRules.push(out);
      }
    }
    return { resourceRules, nonResourceRules, incomplete: errors.length > 0, evaluationError: errors.length > 0 ? errors.join(', ') : undefined };
  }

  private userRules(index: PolicyIndex, user: UserInfo, namespace: string): HeldRules {
    const key = `${namespace}\u0000${user.name}\u0000${user.groups.join('\u0000')}`;
    const memoized = index.memo.get(key);
    if (memoized) return memoized;
    const rules: PolicyRule[] = [];
    const grants: string[] = [];
    const errors: string[] = [];
    for (const binding of index.clusterBindings) {
      const subject = binding.subjects.find((s) => appliesTo(s, user, ''));
      if (subject === undefined) continue;
      const held = binding.roleRef.kind === 'ClusterRole' ? index.clusterRoleRules(binding.roleRef.name) : undefined;
      if (held === undefined) errors.push(`clusterrole.rbac.authorization.k8s.io ${JSON.stringify(binding.roleRef.name)} not found`);
      else {
        const grant = describeGrant('ClusterRoleBinding', binding.name, binding, subject, '');
        for (const rule of held) {
          rules.push(rule);
          grants.push(grant);
        }
      }
    }
    if (namespace !== '') {
      for (const binding of index.bindingsByNamespace.get(namespace) ?? []) {
        const subject = binding.subjects.find((s) => appliesTo(s, user, namespace));
        if (subject === undefined) continue;
        let held: PolicyRule[] | undefined;
        if (binding.roleRef.kind === 'ClusterRole') held = index.clusterRoleRules(binding.roleRef.name);
        else if (binding.roleRef.kind === 'Role') {
          const role = index.roles.get(`${namespace}/${binding.roleRef.name}`);
          held = role === undefined ? undefined : rulesOf(role);
        }
        if (held === undefined)
          errors.push(`${binding.roleRef.kind.toLowerCase()}.rbac.authorization.k8s.io ${JSON.stringify(binding.roleRef.name)} not found`);
        else {
          const grant = describeGrant('RoleBinding', `${binding.name}/${binding.namespace}`, binding, subject, binding.namespace);
          for (const rule of held) {
            rules.push(rule);
            grants.push(grant);
          }
        }
      }
    }
    const result = { rules, grants, errors };
    // Bounded: a flood of distinct users may not grow the memo without limit.
    if (index.memo.size >= 10_000) index.memo.clear();
    index.memo.set(key, result);
    return result;
  }

  private async current(): Promise<PolicyIndex> {
    const version = this.source.version();
    if (this.index !== undefined && this.index.version === version) return this.index.index;
    this.loading ??= this.source.read().then(
      (objects) => {
        const index = new PolicyIndex(objects);
        this.index = { version, index };
        this.loading = undefined;
        return index;
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }
}

function toBinding(object: unknown): Binding | undefined {
  const o = object as Meta & { subjects?: unknown; roleRef?: { kind?: unknown; name?: unknown } };
  const name = o.metadata?.name;
  const roleRef = o.roleRef;
  if (name === undefined || typeof roleRef?.kind !== 'string' || typeof roleRef.name !== 'string') return undefined;
  const subjects = Array.isArray(o.subjects) ? (o.subjects.filter((s) => typeof s === 'object' && s !== null) as Subject[]) : [];
  return { namespace: o.metadata?.namespace ?? '', name, subjects, roleRef: { kind: roleRef.kind, name: roleRef.name } };
}

/**
 * What granted a rule, in Kubernetes' words for an authorization's reason:
 * `ClusterRoleBinding "admins" of ClusterRole "admin" to Group "ops"`, `RoleBinding "rb/ns" of ...`.
 */
function describeGrant(kind: string, name: string, binding: Binding, subject: Subject, bindingNamespace: string): string {
  const who = subject.kind === 'ServiceAccount' ? `${subject.name ?? ''}/${subject.namespace || bindingNamespace}` : (subject.name ?? '');
  return `${kind} ${JSON.stringify(name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${subject.kind ?? ''} ${JSON.stringify(who)}`;
}

/** Kubernetes' appliesToUser: a User by name, a Group by membership, a ServiceAccount by its user name. */
export function appliesTo(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group': {
      if (subject.name === undefined) return false;
      if (user.groups.includes(subject.name)) return true;
      if (!subject.name.startsWith('system:serviceaccounts:')) return false;
      // A service account group of a system namespace, under either of its names.
      const group = storedServiceAccountIdentity(subject.name);
      return user.groups.some((g) => storedServiceAccountIdentity(g) === group);
    }
    case 'ServiceAccount': {
      const namespace = storedNamespace(subject.namespace || bindingNamespace);
      return namespace !== '' && storedServiceAccountIdentity(user.name) === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

// A label selector (matchLabels and matchExpressions) against labels; a malformed selector matches nothing.
function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  if (typeof selector !== 'object' || selector === null) return false;
  const { matchLabels, matchExpressions } = selector as { matchLabels?: Record<string, string>; matchExpressions?: unknown };
  for (const [k, v] of Object.entries(matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of Array.isArray(matchExpressions) ? matchExpressions : []) {
    const { key, operator, values } = e as { key: string; operator: string; values?: string[] };
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    const inValues = (values ?? []).includes(labels[key]);
    if (operator === 'In' && !(has && inValues)) return false;
    if (operator === 'NotIn' && has && inValues) return false;
    if (operator === 'Exists' && !has) return false;
    if (operator === 'DoesNotExist' && has) return false;
  }
  // An empty selector selects nothing for aggregation (Kubernetes skips it).
  return Object.keys(matchLabels ?? {}).length > 0 || (Array.isArray(matchExpressions) && matchExpressions.length > 0);
}

import { KUBERNETES_SYSTEM_NAMESPACES, storedNamespace } from '@svc/api';
import type { UserInfo } from '@svc/machinery';

/** What is asked of the authorizers (Kubernetes' authorizer.Attributes). */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** Resource requests. */
  namespace: string;
  /** The other name of a system namespace (kube-system) when the request named it so: what a webhook is told. */
  requestedNamespace?: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** Non-resource requests. */
  path: string;
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, for the denial message and the review APIs; may be empty. */
  reason: string;
  /**
   * The mode could not decide (a webhook that failed). Without a later allow the request then fails
   * with an internal error rather than a 403, as Kubernetes answers it.
   */
  error?: string;
}

export interface Authorizer {
  readonly name: string;
  authorize(attributes: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** The rules a user holds in a namespace, for SelfSubjectRulesReview. */
export interface RuleResolver {
  rulesFor(
    user: UserInfo,
    namespace: string,
  ): Promise<{ resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[]; incomplete: boolean; evaluationError?: string }>;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export const SYSTEM_MASTERS_GROUP = 'system:masters';

/** AlwaysAllow. */
export const alwaysAllow: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'allow', reason: '' }) };
/** AlwaysDeny: no opinion on anything, so the request is refused unless a later mode allows it. */
export const alwaysDeny: Authorizer = { name: 'AlwaysDeny', authorize: () => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }) };

/**
 * `system:masters` may do anything, before any mode is asked (Kubernetes' privileged-group
 * authorizer, which the API server puts in front of the configured modes).
 */
export const privilegedGroups: Authorizer = {
  name: 'privileged-groups',
  authorize: (a) => ({ decision: a.user.groups.includes(SYSTEM_MASTERS_GROUP) ? 'allow' : 'noOpinion', reason: '' }),
};

/**
 * Attributes that name a system namespace by its Kubernetes name (an access review's, say) as the
 * namespace it is stored as, so that every mode sees one name. Request paths are mapped already.
 */
function withStoredNamespace(a: AuthorizationAttributes): AuthorizationAttributes {
  const namespaced = KUBERNETES_SYSTEM_NAMESPACES.has(a.namespace);
  const named = a.resource === 'namespaces' && a.apiGroup === '' && KUBERNETES_SYSTEM_NAMESPACES.has(a.name);
  if (!namespaced && !named) return a;
  return { ...a, namespace: storedNamespace(a.namespace), name: named ? storedNamespace(a.name) : a.name };
}

/** The configured modes in order: the first allow or deny decides; nobody deciding is a denial. */
export class UnionAuthorizer implements Authorizer {
  readonly name = 'union';

  constructor(readonly authorizers: readonly Authorizer[]) {}

  /** Only AlwaysAllow: nothing needs asking. */
  get trivial(): boolean {
    return this.authorizers.length > 0 && this.authorizers[0] === alwaysAllow;
  }

  async authorize(asked: AuthorizationAttributes): Promise<AuthorizationResult> {
    const attributes = withStoredNamespace(asked);
    const reasons: string[] = [];
    const errors: string[] = [];
    for (const authorizer of this.authorizers) {
      const result = await authorizer.authorize(attributes);
      if (result.decision !== 'noOpinion') return result;
      if (result.reason !== '') reasons.push(result.reason);
      if (result.error !== undefined) errors.push(result.error);
    }
    return errors.length > 0
      ? { decision: 'noOpinion', reason: reasons.join(', '), error: errors.join(', ') }
      : { decision: 'noOpinion', reason: reasons.join(', ') };
  }

  /** The rules each mode grants the user in `namespace`, for SelfSubjectRulesReview. */
  async rulesFor(user: UserInfo, asked: string): ReturnType<RuleResolver['rulesFor']> {
    const namespace = storedNamespace(asked);
    const everything = {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    let incomplete = false;
    const errors: string[] = [];
    for (const authorizer of this.authorizers) {
      if (authorizer === alwaysAllow) return everything;
      if (authorizer === privilegedGroups) {
        if (user.groups.includes(SYSTEM_MASTERS_GROUP)) return everything;
        continue;
      }
      if (authorizer === alwaysDeny) continue;
      const resolver = authorizer as Partial<RuleResolver>;
      if (typeof resolver.rulesFor !== 'function') {
        // A mode that cannot list its rules leaves the answer incomplete, and says so.
        incomplete = true;
        errors.push(`${authorizer.name} authorizer does not support user rule resolution`);
        continue;
      }
      const rules = await resolver.rulesFor(user, namespace);
      for (const r of rules.resourceRules) resourceRules.push(r);
      for (const r of rules.nonResourceRules) nonResourceRules.push(r);
      if (rules.incomplete) incomplete = true;
      if (rules.evaluationError) errors.push(rules.evaluationError);
    }
    // Kubernetes aggregates the modes' errors: one error as it is, several as `[a, b]`.
    const evaluationError = errors.length === 0 ? undefined : errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
    return { resourceRules, nonResourceRules, incomplete, ...(evaluationError !== undefined ? { evaluationError } : {}) };
  }
}

import { newInvalid, type UserInfo } from '@svc/machinery';
import type { AuthorizationAttributes, NonResourceRule, ResourceRule, UnionAuthorizer } from '../../auth/authorizer';
import { str, strings, type Reviews } from '../review-rest';

/**
 * The authorization group's reviews, each asked of the authorizers: SubjectAccessReview and
 * LocalSubjectAccessReview (may this user do that, cluster-wide or in the path's namespace),
 * SelfSubjectAccessReview (may I), SelfSubjectRulesReview (what may I do in a namespace).
 */
export function authorizationReviews(authorizer: UnionAuthorizer): Reviews {
  return {
    selfsubjectaccessreviews: { kind: 'SelfSubjectAccessReview', review: (body, user) => accessReview(body, user, '', authorizer) },
    subjectaccessreviews: { kind: 'SubjectAccessReview', review: (body) => accessReview(body, subjectOf(body), '', authorizer) },
    localsubjectaccessreviews: {
      kind: 'LocalSubjectAccessReview',
      namespaced: true,
      review: (body, _user, namespace) => accessReview(body, subjectOf(body), namespace, authorizer),
    },
    selfsubjectrulesreviews: { kind: 'SelfSubjectRulesReview', review: (body, user) => rulesReview(body, user, authorizer) },
  };
}

/** The user a SubjectAccessReview asks about. */
function subjectOf(body: Record<string, unknown>): UserInfo {
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  const name = str(spec.user);
  const groups = strings(spec.groups);
  if (name === '' && groups.length === 0) {
    throw newInvalid({ group: 'authorization.k8s.io', kind: 'SubjectAccessReview' }, '', [
      { type: 'FieldValueRequired', field: 'spec.user', detail: 'at least one of user or group must be specified' },
    ]);
  }
  const extra: Record<string, string[]> = {};
  if (typeof spec.extra === 'object' && spec.extra !== null) for (const [k, v] of Object.entries(spec.extra)) extra[k] = strings(v);
  return { name, uid: str(spec.uid) || undefined, groups, extra };
}

async function accessReview(body: Record<string, unknown>, user: UserInfo, namespace: string, authorizer: UnionAuthorizer): Promise<Record<string, unknown>> {
  const result = await authorizer.authorize(reviewedAttributes(body, user, namespace));
  const status: Record<string, unknown> = { allowed: result.decision === 'allow' };
  if (result.decision === 'deny') status.denied = true;
  if (result.reason !== '') status.reason = result.reason;
  if (result.error !== undefined) status.evaluationError = result.error;
  return { status };
}

/** What an access review asks about: exactly one of resource and non-resource attributes. */
function reviewedAttributes(body: Record<string, unknown>, user: UserInfo, namespace: string): AuthorizationAttributes {
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  const resource = spec.resourceAttributes as Record<string, unknown> | undefined;
  const nonResource = spec.nonResourceAttributes as Record<string, unknown> | undefined;
  if ((resource === undefined) === (nonResource === undefined)) {
    throw newInvalid({ group: 'authorization.k8s.io', kind: namespace !== '' ? 'LocalSubjectAccessReview' : 'SubjectAccessReview' }, '', [
      { type: 'FieldValueRequired', field: 'spec.resourceAttributes', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' },
    ]);
  }
  const none = { namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', path: '' };
  if (resource === undefined) return { ...none, user, verb: str(nonResource!.verb), isResourceRequest: false, path: str(nonResource!.path) };
  return {
    ...none,
    user,
    verb: str(resource.verb),
    isResourceRequest: true,
    namespace: namespace || str(resource.namespace),
    apiGroup: str(resource.group),
    apiVersion: str(resource.version),
    resource: str(resource.resource),
    subresource: str(resource.subresource),
    name: str(resource.name),
  };
}

async function rulesReview(body: Record<string, unknown>, user: UserInfo, authorizer: UnionAuthorizer): Promise<Record<string, unknown>> {
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  const rules = await authorizer.rulesFor(user, str(spec.namespace));
  const status: Record<string, unknown> = {
    resourceRules: rules.resourceRules satisfies ResourceRule[],
    nonResourceRules: rules.nonResourceRules satisfies NonResourceRule[],
    incomplete: rules.incomplete,
  };
  if (rules.evaluationError) status.evaluationError = rules.evaluationError;
  return { status };
}

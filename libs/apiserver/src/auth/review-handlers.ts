import type { IncomingMessage, ServerResponse } from 'node:http';
import { EnvelopeError, failureStatus, isStatusError, newBadRequest, newInvalid } from '@svc/machinery';
import { decodeObjectBody } from '../resources/body-decoder';
import { mediaTypeOf, PROTOBUF_MEDIA_TYPES } from '../resources/media-types';
import { negotiateOutput } from '../resources/negotiation';
import { writeBody } from '../resources/response-writer';
import { decodeReviewProtobuf } from './review-protobuf';
import { readBody } from '../request/read-body';
import { requestContext } from '../request/request-context';
import { methodNotAllowedStatus, internalErrorStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import type { AuthorizationAttributes, NonResourceRule, ResourceRule, UnionAuthorizer } from './authorizer';
import type { TokenAuthenticator } from './token-authenticator';
import { withAuthenticatedGroup } from '@svc/machinery';
import { ANONYMOUS_USER, type UserInfo } from '@svc/machinery';

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

export interface ReviewDependencies {
  authorizer: UnionAuthorizer;
  /** The token authenticators TokenReview asks; none answers every review unauthenticated. */
  tokenAuthenticators: readonly TokenAuthenticator[];
  maxRequestBodyBytes: number;
}

type Review = (body: Record<string, unknown>, user: UserInfo, namespace: string) => Promise<Record<string, unknown>>;

// Both names of each group answer (the specification's svc.io name and Kubernetes' k8s.io name).
const AUTHENTICATION_GROUPS = ['authentication.k8s.io', 'authentication.svc.io'];
const AUTHORIZATION_GROUPS = ['authorization.k8s.io', 'authorization.svc.io'];

/**
 * The review APIs, which store nothing: TokenReview and SelfSubjectReview (authentication), and
 * SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview
 * (authorization). Each is a create that answers the request object with its status filled in.
 * They run behind authorization, which decides who may create them.
 */
export function withReviews(deps: ReviewDependencies): Handler {
  const reviews: Record<string, { kind: string; review: Review; namespaced?: boolean }> = {
    'authentication/selfsubjectreviews': { kind: 'SelfSubjectReview', review: (_b, user) => Promise.resolve({ status: { userInfo: userInfoJson(user) } }) },
    'authentication/tokenreviews': { kind: 'TokenReview', review: (b) => tokenReview(b, deps.tokenAuthenticators) },
    'authorization/selfsubjectaccessreviews': { kind: 'SelfSubjectAccessReview', review: (b, user) => accessReview(b, user, '', deps.authorizer) },
    'authorization/subjectaccessreviews': { kind: 'SubjectAccessReview', review: (b) => accessReview(b, subjectOf(b), '', deps.authorizer) },
    'authorization/localsubjectaccessreviews': {
      kind: 'LocalSubjectAccessReview',
      namespaced: true,
      review: (b, _user, namespace) => accessReview(b, subjectOf(b), namespace, deps.authorizer),
    },
    'authorization/selfsubjectrulesreviews': { kind: 'SelfSubjectRulesReview', review: (b, user) => rulesReview(b, user, deps.authorizer) },
  };
  return (req, res, next) => {
    const { info } = requestContext(req);
    if (!info.isResourceRequest || info.name !== '' || info.subresource !== '') return next();
    const family = AUTHENTICATION_GROUPS.includes(info.group) ? 'authentication' : AUTHORIZATION_GROUPS.includes(info.group) ? 'authorization' : undefined;
    if (family === undefined) return next();
    const entry = reviews[`${family}/${info.resource}`];
    if (entry === undefined || (entry.namespaced === true) !== (info.namespace !== '')) return next();
    if (req.method !== 'POST') return writeStatus(res, methodNotAllowedStatus());
    const user = requestContext(req).user ?? ANONYMOUS_USER;
    void answer(req, res, deps, entry, user, info.namespace, `${info.group}/${info.version}`);
  };
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ReviewDependencies,
  entry: { kind: string; review: Review },
  user: UserInfo,
  namespace: string,
  apiVersion: string,
): Promise<void> {
  try {
    const raw = await readBody(req, deps.maxRequestBodyBytes);
    const contentType = req.headers['content-type'];
    const body =
      contentType !== undefined && PROTOBUF_MEDIA_TYPES.includes(mediaTypeOf(contentType))
        ? decodeReviewProtobuf(raw)
        : (await decodeObjectBody(raw, contentType)).value;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw newBadRequest(`the request body must be a ${entry.kind} object`);
    const object = body as Record<string, unknown>;
    if (object.kind !== undefined && object.kind !== entry.kind) {
      throw newBadRequest(`the kind in the data (${JSON.stringify(object.kind)}) does not match the expected kind (${entry.kind})`);
    }
    const spec = (object.spec ?? {}) as Record<string, unknown>;
    if (typeof spec !== 'object' || Array.isArray(spec)) throw newBadRequest('spec must be an object');
    if (namespace !== '') {
      const given = (spec.resourceAttributes as { namespace?: unknown } | undefined)?.namespace;
      if (given !== undefined && given !== '' && given !== namespace) {
        throw newInvalid({ group: 'authorization.k8s.io', kind: entry.kind }, '', [
          { type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', badValue: given, detail: 'must match metadata.namespace' },
        ]);
      }
    }
    const filled = await entry.review(object, user, namespace);
    const metadata = { ...((object.metadata as Record<string, unknown> | undefined) ?? {}), creationTimestamp: null };
    const out = { kind: entry.kind, apiVersion, metadata, spec: object.spec ?? {}, ...filled };
    if (entry.kind === 'SelfSubjectReview') delete (out as { spec?: unknown }).spec;
    // In protobuf for a client that asks for it (the review kinds have Kubernetes messages), JSON otherwise.
    writeBody(res, 201, out, negotiateOutput(req.headers.accept, { verb: 'create', protobuf: true }, false));
  } catch (error) {
    if (isStatusError(error)) return writeStatus(res, error.status);
    if (error instanceof EnvelopeError) return writeStatus(res, failureStatus(error.kind === 'UnsupportedMediaType' ? 415 : 400, error.kind, error.message));
    writeStatus(res, internalErrorStatus('the review could not be answered'));
  }
}

function userInfoJson(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.name };
  if (user.uid !== undefined && user.uid !== '') out.uid = user.uid;
  out.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) out.extra = user.extra;
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
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
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  const resource = spec.resourceAttributes as Record<string, unknown> | undefined;
  const nonResource = spec.nonResourceAttributes as Record<string, unknown> | undefined;
  const kind = namespace !== '' ? 'LocalSubjectAccessReview' : 'SubjectAccessReview';
  if ((resource === undefined) === (nonResource === undefined)) {
    throw newInvalid({ group: 'authorization.k8s.io', kind }, '', [
      { type: 'FieldValueRequired', field: 'spec.resourceAttributes', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' },
    ]);
  }
  const attributes: AuthorizationAttributes = resource
    ? {
        user,
        verb: str(resource.verb),
        isResourceRequest: true,
        namespace: namespace || str(resource.namespace),
        apiGroup: str(resource.group),
        apiVersion: str(resource.version),
        resource: str(resource.resource),
        subresource: str(resource.subresource),
        name: str(resource.name),
        path: '',
      }
    : {
        user,
        verb: str(nonResource!.verb),
        isResourceRequest: false,
        namespace: '',
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        name: '',
        path: str(nonResource!.path),
      };
  const result = await authorizer.authorize(attributes);
  const status: Record<string, unknown> = { allowed: result.decision === 'allow' };
  if (result.decision === 'deny') status.denied = true;
  if (result.reason !== '') status.reason = result.reason;
  if (result.error !== undefined) status.evaluationError = result.error;
  return { status };
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

async function tokenReview(body: Record<string, unknown>, authenticators: readonly TokenAuthenticator[]): Promise<Record<string, unknown>> {
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  const token = str(spec.token);
  const audiences = strings(spec.audiences);
  if (token === '') {
    throw newInvalid({ group: 'authentication.k8s.io', kind: 'TokenReview' }, '', [
      { type: 'FieldValueRequired', field: 'spec.token', detail: 'token is required' },
    ]);
  }
  for (const authenticator of authenticators) {
    const outcome = await authenticator.authenticateToken(token, audiences.length > 0 ? audiences : undefined);
    if (outcome === undefined) continue;
    if ('user' in outcome) {
      const user = withAuthenticatedGroup(outcome.user);
      const status: Record<string, unknown> = { authenticated: true, user: userInfoJson(user) };
      if (outcome.audiences !== undefined) status.audiences = outcome.audiences;
      return { status };
    }
    return { status: { authenticated: false, user: {}, error: outcome.error } };
  }
  return { status: { authenticated: false, user: {}, error: 'invalid bearer token' } };
}

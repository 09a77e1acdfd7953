import type { IncomingMessage } from 'node:http';
import { COMPONENT_STATUS_RESOURCE } from '@svc/api';
import { ANONYMOUS_USER, EnvelopeError, failureStatus, isStatusError } from '@svc/machinery';
import type { UnionAuthorizer } from '../auth/authorizer';
import type { ServiceAccountTokens } from '../auth/service-account-tokens';
import type { TokenAuthenticator } from '../auth/token-authenticator';
import { decodeObjectBody } from '../decoding/body-decoder';
import { mediaTypeOf, PROTOBUF_MEDIA_TYPES } from '../decoding/media-types';
import { decodeReviewProtobuf } from '../decoding/review-protobuf';
import { authenticationReviews } from '../registry/authentication/reviews';
import { authorizationReviews } from '../registry/authorization/reviews';
import type { ComponentHealth, ComponentStatuses } from '../registry/core/component-statuses';
import { requestToken } from '../registry/core/service-account/token-request';
import type { ResourceRegistries } from '../registry/registries';
import { answerReview, type Reviews } from '../registry/review-rest';
import { readBody } from '../request/read-body';
import { auditAnnotationsOf, type RequestContext } from '../request/request-context';
import type { RequestInfo } from '../request/request-info';
import type { ResponseWriter } from '../serving/response-writer';
import { internalErrorStatus, methodNotAllowedStatus } from '../status/status';
import { negotiateOutput, type OutputFormat } from './responses/negotiation';
import { writeBody } from './responses/write-body';

export interface RestEndpointsOptions {
  /** The review APIs, answered by the authorizers and token authenticators; not served without them. */
  reviews?: { authorizer: UnionAuthorizer; tokenAuthenticators: readonly TokenAuthenticator[] };
  /** TokenRequest (`serviceaccounts/<name>/token`); not served without an issuer. */
  tokens?: { tokens: ServiceAccountTokens; registries: ResourceRegistries };
  /** `componentstatuses`; not served without it. */
  componentStatuses?: ComponentStatuses;
  maxRequestBodyBytes: number;
}

// Both names of each group answer (the specification's svc.io name and Kubernetes' k8s.io name).
const AUTHENTICATION_GROUPS = ['authentication.k8s.io', 'authentication.svc.io'];
const AUTHORIZATION_GROUPS = ['authorization.k8s.io', 'authorization.svc.io'];

const COMPONENT_STATUS_COLUMNS = [
  { name: 'Name', type: 'string', format: 'name', description: 'The name of the component.', priority: 0 },
  { name: 'Status', type: 'string', format: '', description: 'Status of the component conditions', priority: 0 },
  { name: 'Message', type: 'string', format: '', description: 'Message of the component conditions', priority: 0 },
  { name: 'Error', type: 'string', format: '', description: 'Error of the component conditions', priority: 0 },
];

/**
 * The resources no kind of the scheme stores, each served by a REST of its own (Kubernetes' review
 * REST, TokenREST and componentstatuses): their paths are resource paths, dispatched here before the
 * scheme is asked. Reviews and component statuses answer in the negotiated encoding (Kubernetes'
 * protobuf included), TokenRequest in JSON; a body may come as protobuf (kubectl sends its reviews so).
 */
export class RestEndpoints {
  private readonly authentication: Reviews;
  private readonly authorization: Reviews;

  constructor(private readonly options: RestEndpointsOptions) {
    this.authentication = options.reviews ? authenticationReviews(options.reviews.tokenAuthenticators) : {};
    this.authorization = options.reviews ? authorizationReviews(options.reviews.authorizer) : {};
  }

  /** Serves the request when one of these resources owns its path; false for every other path. */
  async serve(req: IncomingMessage, res: ResponseWriter, context: RequestContext): Promise<boolean> {
    const { info } = context;
    if (!info.isResourceRequest) return false;
    if (this.isComponentStatuses(info)) await this.componentStatuses(req, res, info);
    else if (this.reviewOf(info) !== undefined) {
      // The review kinds have Kubernetes messages: a client asking for protobuf gets the answer in it.
      const answer = negotiateOutput(req.headers.accept, { verb: 'create', protobuf: true }, false);
      await this.created(req, res, answer, () => this.review(req, context), 'the review could not be answered');
    } else if (this.isTokenRequest(info)) await this.created(req, res, undefined, () => this.token(req, context), 'the token could not be issued');
    else return false;
    return true;
  }

  private reviewOf(info: RequestInfo) {
    if (info.name !== '' || info.subresource !== '') return undefined;
    const reviews = AUTHENTICATION_GROUPS.includes(info.group) ? this.authentication : AUTHORIZATION_GROUPS.includes(info.group) ? this.authorization : {};
    const entry = reviews[info.resource];
    return entry === undefined || (entry.namespaced === true) !== (info.namespace !== '') ? undefined : entry;
  }

  private isTokenRequest(info: RequestInfo): boolean {
    return (
      this.options.tokens !== undefined && info.group === '' && info.resource === 'serviceaccounts' && info.subresource === 'token' && info.parts.length === 3
    );
  }

  private isComponentStatuses(info: RequestInfo): boolean {
    const resource = COMPONENT_STATUS_RESOURCE;
    return (
      this.options.componentStatuses !== undefined &&
      info.apiPrefix === 'api' &&
      info.version === resource.version &&
      info.resource === resource.resource &&
      info.namespace === '' &&
      info.subresource === ''
    );
  }

  private async review(req: IncomingMessage, context: RequestContext): Promise<unknown> {
    const { info } = context;
    const entry = this.reviewOf(info)!;
    return answerReview(entry, await this.body(req), context.user ?? ANONYMOUS_USER, info.namespace, `${info.group}/${info.version}`);
  }

  private async token(req: IncomingMessage, context: RequestContext): Promise<unknown> {
    const { tokens, registries } = this.options.tokens!;
    const { namespace, name } = context.info;
    return requestToken(tokens, registries, { namespace, name, body: await this.body(req), user: context.user, auditAnnotations: auditAnnotationsOf(context) });
  }

  /** A create these resources answer with 201 and the object made, in `format` (JSON without one); only POST is served. */
  private async created(
    req: IncomingMessage,
    res: ResponseWriter,
    format: OutputFormat | undefined,
    create: () => Promise<unknown>,
    failure: string,
  ): Promise<void> {
    if (req.method !== 'POST') return res.status(methodNotAllowedStatus());
    try {
      const object = await create();
      if (format) writeBody(res, 201, object, format);
      else res.end(201, JSON.stringify(object), { 'Content-Type': 'application/json' });
    } catch (error) {
      if (isStatusError(error)) return res.status(error.status);
      if (error instanceof EnvelopeError) return res.status(failureStatus(error.kind === 'UnsupportedMediaType' ? 415 : 400, error.kind, error.message));
      res.status(internalErrorStatus(failure));
    }
  }

  /** The request body, protobuf (the review kinds' messages) or JSON or YAML. */
  private async body(req: IncomingMessage): Promise<unknown> {
    const raw = await readBody(req, this.options.maxRequestBodyBytes);
    const contentType = req.headers['content-type'];
    if (contentType !== undefined && PROTOBUF_MEDIA_TYPES.includes(mediaTypeOf(contentType))) return decodeReviewProtobuf(raw);
    return (await decodeObjectBody(raw, contentType)).value;
  }

  /** `GET /api/v1/componentstatuses[/<name>]`, with the deprecation Warning Kubernetes sends; list and get only. */
  private async componentStatuses(req: IncomingMessage, res: ResponseWriter, info: RequestInfo): Promise<void> {
    res.setHeader('Warning', `299 - "${COMPONENT_STATUS_RESOURCE.deprecationWarning}"`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return res.status(methodNotAllowedStatus());
    try {
      const items = await this.options.componentStatuses!.read(info.name);
      // A built-in kind with a message: a client-go client asking for protobuf gets it.
      const negotiated = negotiateOutput(req.headers.accept, { verb: info.name === '' ? 'list' : 'get', protobuf: true }, false);
      writeBody(res, 200, componentStatusBody(items, info.name, negotiated), negotiated);
    } catch (error) {
      if (!isStatusError(error)) throw error;
      res.status(error.status);
    }
  }
}

/** The list, the one component asked for, or a Table of them. */
function componentStatusBody(items: ComponentHealth[], name: string, format: OutputFormat): unknown {
  const view = format.view;
  if (view?.as === 'Table') {
    const rows = items.map((item) => {
      const c = item.conditions[0];
      const object = { kind: 'PartialObjectMetadata', apiVersion: view.apiVersion, metadata: item.metadata };
      return { cells: [item.metadata.name, c.status === 'True' ? 'Healthy' : 'Unhealthy', c.message ?? '', c.error ?? ''], object };
    });
    return { kind: 'Table', apiVersion: view.apiVersion, metadata: {}, columnDefinitions: COMPONENT_STATUS_COLUMNS, rows };
  }
  if (name === '') return { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items };
  return { kind: 'ComponentStatus', apiVersion: 'v1', ...items[0] };
}

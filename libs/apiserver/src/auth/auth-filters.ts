import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequestStatus, internalErrorStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import { auditAnnotationsOf, requestContext, type RequestContext } from '../request/request-context';
import type { RequestInfo } from '../request/request-info';
import type { RequestAuthenticator } from '@svc/machinery';
import type { AuthorizationAttributes, UnionAuthorizer } from './authorizer';
import { forbiddenStatus, unauthorizedStatus } from './forbidden';
import { impersonationRequest, impersonatedUser, MAX_IMPERSONATION_VALUES } from './impersonation';
import { ANONYMOUS_USER, type UserInfo } from '@svc/machinery';

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** Kubernetes' WithAuthentication: the caller into the request context, or 401. */
export function withAuthentication(authenticator: RequestAuthenticator | undefined): Handler {
  return (req, res, next) => {
    const context = requestContext(req);
    if (authenticator === undefined || authenticator.trivial) {
      context.user = ANONYMOUS_USER;
      return next();
    }
    authenticator.authenticate(req).then(
      (result) => {
        if ('error' in result) return writeStatus(res, unauthorizedStatus());
        context.user = result.user;
        next();
      },
      () => writeStatus(res, unauthorizedStatus()),
    );
  };
}

/** The attributes of the request as the authorizers are asked about it. */
export function requestAttributes(info: RequestInfo, user: UserInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    namespace: info.namespace,
    ...(info.requestedNamespace !== undefined ? { requestedNamespace: info.requestedNamespace } : {}),
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    path: info.path,
  };
}

/**
 * Kubernetes' WithImpersonation: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-*` act as another
 * user when the caller may `impersonate` each of them; the caller stays in the context as impersonatedBy.
 */
export function withImpersonation(authorizer: UnionAuthorizer): Handler {
  return (req, res, next) => {
    let request;
    try {
      request = impersonationRequest(req);
    } catch (error) {
      return writeStatus(res, badRequestStatus(error instanceof Error ? error.message : String(error)));
    }
    if (request === undefined) return next();
    const context = requestContext(req);
    const actor = context.user ?? ANONYMOUS_USER;
    impersonatedUser(request, actor, authorizer).then(
      (outcome) => {
        if ('denied' in outcome) return writeStatus(res, forbiddenStatus(outcome.denied, outcome.reason));
        context.impersonatedBy = actor;
        context.user = outcome.user;
        for (const name of Object.keys(req.headers)) if (name.startsWith('impersonate-')) delete req.headers[name];
        next();
      },
      () => writeStatus(res, internalErrorStatus('impersonation could not be checked')),
    );
  };
}

export { MAX_IMPERSONATION_VALUES };

/** Kubernetes' WithAuthorization: the configured modes decide, or 403 with Kubernetes' message. */
export function withAuthorization(authorizer: UnionAuthorizer): Handler {
  return (req, res, next) => {
    if (authorizer.trivial) {
      annotateDecision(requestContext(req), 'allow', '');
      return next();
    }
    const context = requestContext(req);
    const attributes = requestAttributes(context.info, context.user ?? ANONYMOUS_USER);
    Promise.resolve(authorizer.authorize(attributes)).then(
      (result) => {
        if (result.decision === 'allow') {
          annotateDecision(context, 'allow', result.reason);
          return next();
        }
        if (result.decision === 'noOpinion' && result.error !== undefined) return writeStatus(res, internalErrorStatus(result.error));
        annotateDecision(context, 'forbid', result.reason);
        writeStatus(res, forbiddenStatus(attributes, result.reason));
      },
      () => writeStatus(res, internalErrorStatus('the request could not be authorized')),
    );
  };
}

/** Kubernetes' audit annotations of the authorization decision, on every audited request that reached it. */
function annotateDecision(context: RequestContext, decision: 'allow' | 'forbid', reason: string): void {
  const annotations = auditAnnotationsOf(context);
  if (annotations === undefined) return;
  annotations['authorization.k8s.io/decision'] = decision;
  annotations['authorization.k8s.io/reason'] = reason;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { withAudit, withAuditId, withFailedAuthenticationAudit, type AuditRuntime } from '../audit/audit-filter';
import type { ApiServerServingConfig } from '../config';
import type { ServerLifecycle } from '../lifecycle/server-lifecycle';
import type { MetricsService } from '../metrics/metrics.service';
import { attachRequestContext, type RequestContext, requestContext, requestUrl } from '../request/request-context';
import { effectiveRequestTimeoutMs } from '../request/request-timeout';
import { requestEntityTooLargeStatus, StatusError, timeoutStatus, tooManyRequestsStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import { withAuthentication, withAuthorization, withImpersonation } from '../auth/auth-filters';
import { ResponseWriter } from '../serving/response-writer';
import type { Security } from '../auth/security';

export type ChainHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

export interface HandlerChainDependencies {
  config: ApiServerServingConfig;
  metrics: MetricsService;
  lifecycle: ServerLifecycle;
  /** Absent when no audit policy and backend are configured. */
  audit?: AuditRuntime;
  /** Authentication and authorization; without it every request is anonymous and allowed. */
  security?: Security;
  /** Whether a request's route is served to anyone: the filters from authentication on are skipped for it. */
  servedToAnyone?: (req: IncomingMessage) => boolean;
  /** API Priority and Fairness (`--enable-priority-and-fairness`): when present, it takes the in-flight caps' place. */
  priorityAndFairness?: { filter(): ChainHandler };
}

// Kubernetes' WithoutRetryOnThePaths: probes and telemetry keep answering while the server drains.
const RETRY_AFTER_EXEMPT_PATHS = ['/readyz', '/livez', '/healthz', '/version', '/logs', '/metrics'];
// Probes ride Kubernetes' exempt priority level: a loaded server must still answer its kubelet.
const INFLIGHT_EXEMPT_PATHS = ['/readyz', '/livez', '/healthz'];

function underAny(path: string, prefixes: string[]): boolean {
  return prefixes.some((p) => path === p || path.startsWith(`${p}/`));
}

const DONE_CALLBACKS = Symbol('doneCallbacks');

/**
 * Runs once when the exchange is over, whether the response finished or the connection dropped. Every
 * filter's callback of one response hangs on one pair of listeners, in the order they were added.
 */
function onDone(res: ServerResponse, done: () => void): void {
  const carrier = res as ServerResponse & { [DONE_CALLBACKS]?: Array<() => void> };
  const known = carrier[DONE_CALLBACKS];
  if (known !== undefined) {
    known.push(done);
    return;
  }
  const callbacks = [done];
  carrier[DONE_CALLBACKS] = callbacks;
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    res.off('finish', once);
    res.off('close', once);
    for (const callback of callbacks) callback();
  };
  res.on('finish', once);
  res.on('close', once);
}

/**
 * The filters as one handler: each calls the next directly, without a framework's router between
 * them (Express' per-layer path matching cost more than most filters themselves). An error passed to
 * `next` skips the rest and goes to `done`, as in Express.
 */
export function composeChain(handlers: readonly ChainHandler[]): ChainHandler {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined) return done(error);
      const handler = handlers[index++];
      if (handler === undefined) return done();
      handler(req, res, next);
    };
    next();
  };
}

/**
 * The filters every request passes before a route, outermost first, in the order Kubernetes'
 * DefaultBuildHandlerChain applies them: request info and metrics, the Audit-Id, shutdown refusal,
 * HSTS, drain tracking, deadline, CORS, the audit of failed authentication (in front of
 * authentication), authentication, audit (after authentication, before impersonation),
 * impersonation, priority and fairness (or the plain in-flight caps), authorization, body size. A filter refuses a request or passes it on:
 * it never serves a route.
 */
export function handlerChain(deps: HandlerChainDependencies): ChainHandler[] {
  const { security } = deps;
  return [
    withRequestContextAndMetrics(deps),
    withAuditId(),
    withShutdownRefusal(deps),
    withStrictTransportSecurity(deps.config.strictTransportSecurityDirectives),
    withDrainTracking(deps.lifecycle),
    withRequestTimeout(deps.config.requestTimeoutMs),
    withCors(deps.config.corsAllowedOrigins),
    withoutAuthenticationFor(
      deps.servedToAnyone,
      composeChain([
        ...(deps.audit ? [withFailedAuthenticationAudit(deps.audit)] : []),
        withAuthentication(security?.authenticator),
        ...(deps.audit ? [withAudit(deps.audit)] : []),
        ...(security ? [withImpersonation(security.authorizer)] : []),
        deps.priorityAndFairness ? deps.priorityAndFairness.filter() : withMaxInFlight(deps),
        ...(security ? [withAuthorization(security.authorizer)] : []),
        withBodySizeLimit(deps.config.maxRequestBodyBytes),
      ]),
    ),
  ];
}

/**
 * The filters from authentication on, skipped for a route served to anyone: the console's files hold
 * no data (everything it shows comes through the API as its user), so a browser without credentials,
 * or with a certificate of another CA, still gets the page where it signs in.
 */
function withoutAuthenticationFor(servedToAnyone: ((req: IncomingMessage) => boolean) | undefined, authenticated: ChainHandler): ChainHandler {
  if (servedToAnyone === undefined) return authenticated;
  return (req, res, next) => (servedToAnyone(req) ? next() : authenticated(req, res, next));
}

function withRequestContextAndMetrics({ metrics }: HandlerChainDependencies): ChainHandler {
  return (req, res, next) => {
    const context = attachRequestContext(req);
    onDone(res, () => {
      if (!res.writableFinished) context.abort(new Error('the client closed the connection'));
      const seconds = Number(process.hrtime.bigint() - context.startedAt) / 1e9;
      const url = requestUrl(req);
      metrics.observeRequest(context.info, res.statusCode, seconds, {
        contentType: req.headers['content-type'],
        dryRun: url.searchParams.getAll('dryRun'),
        unmatched: context.unmatched,
      });
    });
    next();
  };
}

function withShutdownRefusal({ config, lifecycle }: HandlerChainDependencies): ChainHandler {
  return (req, res, next) => {
    if (!lifecycle.reached('notAcceptingNewRequests')) return next();
    // The listener is closed; whatever still arrives on an open connection closes it after this answer.
    res.setHeader('Connection', 'close');
    if (config.shutdownSendRetryAfter && !underAny(requestContext(req).info.path, RETRY_AFTER_EXEMPT_PATHS)) {
      return writeStatus(res, tooManyRequestsStatus('The apiserver is shutting down, please try again later.', 5), {
        Connection: 'close',
      });
    }
    next();
  };
}

function withStrictTransportSecurity(directives: readonly string[]): ChainHandler {
  const value = directives
    .map((d) => d.trim())
    .filter((d) => d !== '')
    .join('; ');
  return (_req, res, next) => {
    if (value !== '') res.setHeader('Strict-Transport-Security', value);
    next();
  };
}

function withDrainTracking(lifecycle: ServerLifecycle): ChainHandler {
  return (req, res, next) => {
    const context = requestContext(req);
    if (underAny(context.info.path, RETRY_AFTER_EXEMPT_PATHS)) return next();
    onDone(res, lifecycle.track(context.longRunning));
    next();
  };
}

function withRequestTimeout(serverTimeoutMs: number): ChainHandler {
  return (req, res, next) => {
    const context = requestContext(req);
    if (context.longRunning) return next();
    let timeoutMs: number;
    try {
      const url = requestUrl(req);
      timeoutMs = effectiveRequestTimeoutMs(serverTimeoutMs, url.searchParams.get('timeout'));
    } catch (error) {
      if (error instanceof StatusError) return writeStatus(res, error.status);
      throw error;
    }
    if (timeoutMs <= 0) return next();
    // Node fires a timer longer than 2^31 - 1 ms at once.
    timeoutMs = Math.min(timeoutMs, 2 ** 31 - 1);
    context.deadline = Date.now() + timeoutMs;
    const timer = setTimeout(() => answerTimedOut(context, res), timeoutMs);
    onDone(res, () => clearTimeout(timer));
    next();
  };
}

/**
 * Answers 504 for a handler that is still working, through the response's writer, which from then on
 * drops what the handler writes; the handler learns of it through the context's signal. A response
 * already under way cannot become a 504: the writer cuts it, so the client sees it incomplete.
 */
function answerTimedOut(context: RequestContext, res: ServerResponse): void {
  if (res.writableEnded) return;
  context.abort(new Error('request timed out'));
  ResponseWriter.of(res).timeOut(timeoutStatus('request did not complete within requested timeout - context deadline exceeded'));
}

// Kubernetes' WithCORS defaults.
const CORS_ALLOWED_METHODS = 'POST, GET, OPTIONS, PUT, DELETE, PATCH';
const CORS_ALLOWED_HEADERS = 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since';
const CORS_EXPOSED_HEADERS = 'Date';

function withCors(allowedOrigins: readonly string[]): ChainHandler {
  const patterns = allowedOrigins.filter((o) => o !== '').map((o) => new RegExp(o));
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (patterns.length === 0 || !origin || !patterns.some((p) => p.test(origin))) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', CORS_ALLOWED_METHODS);
    res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS);
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Vary', 'Origin');
    if (req.method === 'OPTIONS') return ResponseWriter.of(res).end(204, undefined);
    next();
  };
}

function withMaxInFlight({ config, metrics }: HandlerChainDependencies): ChainHandler {
  const counts = { readOnly: 0, mutating: 0 };
  return (req, res, next) => {
    const context = requestContext(req);
    if (context.longRunning || underAny(context.info.path, INFLIGHT_EXEMPT_PATHS)) return next();
    const kind = context.mutating ? 'mutating' : 'readOnly';
    const cap = context.mutating ? config.maxMutatingRequestsInflight : config.maxRequestsInflight;
    if (cap > 0 && counts[kind] >= cap) {
      return writeStatus(res, tooManyRequestsStatus('Too many requests, please try again later.', 1));
    }
    counts[kind]++;
    metrics.setInflight(kind, counts[kind]);
    onDone(res, () => {
      counts[kind]--;
      metrics.setInflight(kind, counts[kind]);
    });
    next();
  };
}

function withBodySizeLimit(limitBytes: number): ChainHandler {
  return (req, res, next) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limitBytes) {
      // The body stays unread, so the connection cannot carry another request.
      return writeStatus(res, requestEntityTooLargeStatus(limitBytes), { Connection: 'close' });
    }
    next();
  };
}

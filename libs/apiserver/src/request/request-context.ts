import type { IncomingMessage } from 'node:http';
import { type RequestInfo, requestInfo } from './request-info';
import { isLongRunning, isMutating } from './request-classification';
import type { UserInfo } from '@svc/machinery';

/** What the handler chain learned about a request, for the handlers behind it. */
export interface RequestContext {
  readonly info: RequestInfo;
  readonly longRunning: boolean;
  readonly mutating: boolean;
  /** process.hrtime.bigint() when the request entered the chain. */
  readonly startedAt: bigint;
  /** Aborted when the request times out or the client goes away; pass it to storage calls. */
  readonly signal: AbortSignal;
  /** Epoch milliseconds after which the request is answered 504; undefined for long-running requests. */
  deadline?: number;
  /** Set when no route matched, so metrics do not grow a label value per unknown path. */
  unmatched?: boolean;
  /** The caller, once authenticated (after impersonation: the user acted as). */
  user?: UserInfo;
  /** The authenticated caller when the request impersonates another user. */
  impersonatedBy?: UserInfo;
  /** The `Audit-Id` of the request, set first in the chain. */
  auditID?: string;
  /** Set when the request is audited at Request level or more: read bodies are handed to it. */
  audit?: { recordRequestBody(body: Buffer, contentType: string | undefined): void };
  /** Set when a handler failed unexpectedly (Kubernetes' panic): audit writes the Panic stage. */
  panicked?: boolean;
  /** Annotations for the request's audit events (authorization's decision and reason, admission's). */
  auditAnnotations?: Record<string, string>;
  abort(reason: unknown): void;
}

// The context and the split URL ride on the request object itself: a WeakMap entry per request costs
// more (ephemerons are extra work for every garbage collection) and the request dies with them anyway.
const CONTEXT = Symbol('requestContext');
const PARSED_URL = Symbol('parsedUrl');

interface Carrier {
  [CONTEXT]?: RequestContext;
  [PARSED_URL]?: { target: string; url: RequestUrl };
}

/**
 * The path and query of a request target, split by hand: WHATWG URL parsing would read a target
 * such as `//host/x` as a host name.
 */
export function requestUrl(req: Pick<IncomingMessage, 'url'>): RequestUrl {
  const target = req.url ?? '/';
  // Every filter and the handler ask; the target is split once per request (again only if it changed).
  const known = (req as Carrier)[PARSED_URL];
  if (known !== undefined && known.target === target) return known.url;
  const queryAt = target.indexOf('?');
  const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
  const url = { pathname: pathname === '' ? '/' : pathname, searchParams: new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1)) };
  (req as Carrier)[PARSED_URL] = { target, url };
  return url;
}

/** A request's path and query; shared by everyone who reads the request, so never changed. */
export interface RequestUrl {
  pathname: string;
  searchParams: URLSearchParams;
}

export function attachRequestContext(req: IncomingMessage): RequestContext {
  const url = requestUrl(req);
  const info = requestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
  // Most requests end without anyone listening to their signal: the controller is made on first use
  // (an AbortController and its signal cost more than the rest of the context).
  let controller: AbortController | undefined;
  const context: RequestContext = {
    info,
    longRunning: isLongRunning(info),
    mutating: isMutating(info),
    startedAt: process.hrtime.bigint(),
    get signal(): AbortSignal {
      return (controller ??= new AbortController()).signal;
    },
    abort: (reason: unknown) => (controller ??= new AbortController()).abort(reason),
  };
  (req as Carrier)[CONTEXT] = context;
  return context;
}

/** The context the handler chain attached, without making one. */
export function existingRequestContext(req: IncomingMessage): RequestContext | undefined {
  return (req as Carrier)[CONTEXT];
}

/** The context the handler chain attached; one is made on the spot for a request that bypassed the chain. */
export function requestContext(req: IncomingMessage): RequestContext {
  return (req as Carrier)[CONTEXT] ?? attachRequestContext(req);
}

/**
 * Where the handlers record annotations for the request's audit events, or undefined when the request
 * is not audited (nothing is gathered for events no one writes).
 */
export function auditAnnotationsOf(context: RequestContext): Record<string, string> | undefined {
  return context.audit === undefined ? undefined : (context.auditAnnotations ??= {});
}

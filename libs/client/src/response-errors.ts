import { failureStatus, isStatus, StatusCauseTypes, StatusError, StatusReasons, type Status, type StatusReason } from '@svc/machinery';

const GENERIC: Record<number, [StatusReason, string]> = {
  400: [StatusReasons.BadRequest, 'the server rejected our request for an unknown reason'],
  401: [StatusReasons.Unauthorized, 'the server has asked for the client to provide credentials'],
  403: [StatusReasons.Forbidden, 'the server does not allow access to the requested resource'],
  404: [StatusReasons.NotFound, 'the server could not find the requested resource'],
  405: [StatusReasons.MethodNotAllowed, 'the server does not allow this method on the requested resource'],
  406: [StatusReasons.NotAcceptable, 'the server was unable to respond with a content type that the client supports'],
  409: [StatusReasons.Conflict, 'the server reported a conflict'],
  410: [StatusReasons.Gone, 'the server reports that the requested resource is gone'],
  413: [StatusReasons.RequestEntityTooLarge, 'the server rejected the request because it is too large'],
  415: [StatusReasons.UnsupportedMediaType, 'the server does not accept the content type of the request body'],
  422: [StatusReasons.Invalid, 'the server rejected our request due to an error in our request'],
  429: [StatusReasons.TooManyRequests, 'the server has received too many requests and has asked us to try again later'],
  500: [StatusReasons.InternalError, 'an error on the server has prevented the request from succeeding'],
  503: [StatusReasons.ServiceUnavailable, 'the server is currently unable to handle the request'],
  504: [StatusReasons.Timeout, 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

const BODY_EXCERPT = 1024;

/** A Status body received with an error code, normalised so `code` and `status` are always set. */
function normalize(status: Status, code: number, retryAfterSeconds?: number): Status {
  const out: Status = { ...status, kind: 'Status', apiVersion: 'v1', metadata: status.metadata ?? {} };
  if (!out.status) out.status = 'Failure';
  if (!out.code) out.code = code;
  if (retryAfterSeconds && !out.details?.retryAfterSeconds) out.details = { ...(out.details ?? {}), retryAfterSeconds };
  return out;
}

/**
 * The error for a non-2xx answer: the server's own Status when the body is one, otherwise a
 * Status made from the code (as client-go does for a proxy's HTML page or an empty body), with
 * the start of the body as an `UnexpectedServerResponse` cause.
 */
export function statusErrorFromResponse(code: number, body: string, retryAfterSeconds?: number): StatusError {
  let parsed: unknown;
  try {
    parsed = body ? JSON.parse(body) : undefined;
  } catch {
    parsed = undefined;
  }
  if (isStatus(parsed)) return new StatusError(normalize(parsed, code, retryAfterSeconds));
  const [reason, message] = GENERIC[code] ?? [
    code >= 500 ? StatusReasons.InternalError : StatusReasons.Unknown,
    `the server responded with the status code ${code} but did not return more information`,
  ];
  const excerpt = body.trim().slice(0, BODY_EXCERPT);
  return new StatusError(
    failureStatus(code, reason, message, {
      causes: excerpt ? [{ reason: StatusCauseTypes.UnexpectedServerResponse, message: excerpt }] : undefined,
      retryAfterSeconds,
    }),
  );
}

/** A 2xx answer whose body could not be decoded. */
export function undecodableResponse(code: number, detail: string, body: string): StatusError {
  return new StatusError(
    failureStatus(500, StatusReasons.InternalError, `the server answered ${code} with a body that could not be decoded: ${detail}`, {
      causes: [{ reason: StatusCauseTypes.UnexpectedServerResponse, message: body.slice(0, BODY_EXCERPT) }],
    }),
  );
}

/**
 * `withdrawn`: the request's `withdraw` signal stopped it before it could have any effect (a write
 * not yet sent, or a read).
 */
export type TransportFailure = 'connection' | 'timeout' | 'withdrawn';

/**
 * The request never got an answer: the connection failed, broke, or the client's deadline passed.
 * It is a StatusError (503 ServiceUnavailable, or 504 Timeout for the deadline) so callers handle
 * every failure one way, and keeps the underlying error as `cause`.
 */
export class TransportError extends StatusError {
  override readonly cause: unknown;
  readonly failure: TransportFailure;

  constructor(failure: TransportFailure, message: string, cause?: unknown) {
    super(failure === 'timeout' ? failureStatus(504, StatusReasons.Timeout, message) : failureStatus(503, StatusReasons.ServiceUnavailable, message));
    this.failure = failure;
    this.cause = cause;
  }
}

export function isTransportError(err: unknown): err is TransportError {
  return err instanceof TransportError;
}

/** True when a request was withdrawn with no effect on the server (see `RestRequest.withdraw`). */
export function isWithdrawn(err: unknown): err is TransportError {
  return err instanceof TransportError && err.failure === 'withdrawn';
}

export { errorMessage } from '@svc/machinery';

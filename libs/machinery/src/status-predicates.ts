import { GENERIC_INTERNAL_ERROR_MESSAGE, newInternalError } from './status-errors';
import { KNOWN_STATUS_REASONS, StatusReasons, type Status, type StatusReason } from './meta/status';
import { isStatus, isStatusError } from './status';

/**
 * The Status carried by a thrown value: a StatusError, a Status body received over HTTP, or an
 * object holding one in `status` (a client's error wrapper). Undefined for anything else.
 */
export function statusOf(err: unknown): Status | undefined {
  if (isStatusError(err)) return err.status;
  if (isStatus(err)) return err;
  if (typeof err === 'object' && err !== null && isStatus((err as { status?: unknown }).status)) {
    return (err as { status: Status }).status;
  }
  return undefined;
}

/** The reason of a failure, `''` (Unknown) when the value carries no Status. */
export function reasonForError(err: unknown): StatusReason {
  return statusOf(err)?.reason ?? StatusReasons.Unknown;
}

function reasonAndCode(err: unknown): { reason: string; code: number } {
  const status = statusOf(err);
  return { reason: status?.reason ?? '', code: status?.code ?? 0 };
}

/** Matches by reason; a reason this code does not know falls back to the HTTP code. */
function byReasonOrCode(reason: StatusReason, code: number): (err: unknown) => boolean {
  return (err) => {
    const rc = reasonAndCode(err);
    if (rc.reason === reason) return true;
    return !KNOWN_STATUS_REASONS.has(rc.reason) && rc.code === code;
  };
}

function byReason(reason: StatusReason): (err: unknown) => boolean {
  return (err) => reasonAndCode(err).reason === reason;
}

export const isNotFound = byReasonOrCode(StatusReasons.NotFound, 404);
export const isAlreadyExists = byReason(StatusReasons.AlreadyExists);
export const isConflict = byReasonOrCode(StatusReasons.Conflict, 409);
export const isInvalid = byReasonOrCode(StatusReasons.Invalid, 422);
export const isGone = byReasonOrCode(StatusReasons.Gone, 410);
export const isResourceExpired = byReason(StatusReasons.Expired);
export const isNotAcceptable = byReasonOrCode(StatusReasons.NotAcceptable, 406);
export const isUnsupportedMediaType = byReasonOrCode(StatusReasons.UnsupportedMediaType, 415);
export const isMethodNotSupported = byReasonOrCode(StatusReasons.MethodNotAllowed, 405);
export const isServiceUnavailable = byReasonOrCode(StatusReasons.ServiceUnavailable, 503);
export const isBadRequest = byReasonOrCode(StatusReasons.BadRequest, 400);
export const isUnauthorized = byReasonOrCode(StatusReasons.Unauthorized, 401);
export const isForbidden = byReasonOrCode(StatusReasons.Forbidden, 403);
export const isTimeout = byReasonOrCode(StatusReasons.Timeout, 504);
export const isServerTimeout = byReason(StatusReasons.ServerTimeout);
export const isInternalError = byReasonOrCode(StatusReasons.InternalError, 500);

/** 429 by reason or by code, whatever the reason says. */
export function isTooManyRequests(err: unknown): boolean {
  const rc = reasonAndCode(err);
  return rc.reason === StatusReasons.TooManyRequests || rc.code === 429;
}

/** 413 by reason or by code, whatever the reason says. */
export function isRequestEntityTooLarge(err: unknown): boolean {
  const rc = reasonAndCode(err);
  return rc.reason === StatusReasons.RequestEntityTooLarge || rc.code === 413;
}

/** 410 either way: the data asked for is gone and the client must start over (relist). */
export function isExpiredOrGone(err: unknown): boolean {
  return isResourceExpired(err) || isGone(err);
}

/** Whether the failure lists a cause of the given type. */
export function hasStatusCause(err: unknown, causeType: string): boolean {
  return (statusOf(err)?.details?.causes ?? []).some((c) => c.reason === causeType);
}

/** The cause type of a create refused because its namespace is being deleted (Kubernetes' NamespaceTerminatingCause). */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** The write was refused because its namespace is being deleted: nothing to retry, the content goes with it. */
export function isNamespaceTerminating(err: unknown): boolean {
  return hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE);
}

/** The read asked for a revision the server has not reached in time (a 504 with that cause). */
export function isTooLargeResourceVersion(err: unknown): boolean {
  return isTimeout(err) && hasStatusCause(err, 'ResourceVersionTooLarge');
}

/** Seconds the server asked the client to wait before retrying, if it asked. */
export function suggestsClientDelay(err: unknown): number | undefined {
  const status = statusOf(err);
  const details = status?.details;
  if (!details) return undefined;
  if (status.reason === StatusReasons.ServerTimeout) return details.retryAfterSeconds ?? 0;
  if (details.retryAfterSeconds && details.retryAfterSeconds > 0) return details.retryAfterSeconds;
  return undefined;
}

/**
 * The Status to send for any thrown value. StatusErrors and Status bodies pass through (with a
 * missing code or status filled in); anything else is a 500 that tells the client nothing of its
 * internals, since its message may hold paths, queries or credentials.
 */
export function statusFromError(err: unknown): Status {
  const status = statusOf(err);
  if (!status) return newInternalError(GENERIC_INTERNAL_ERROR_MESSAGE).status;
  const out: Status = { ...status, kind: 'Status', apiVersion: 'v1', metadata: status.metadata ?? {} };
  if (!out.status) out.status = 'Failure';
  if (out.code === undefined || out.code === 0) out.code = out.status === 'Success' ? 200 : 500;
  return out;
}

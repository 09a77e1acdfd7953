import { FieldError, fieldErrorBody, fieldErrorMessage, fieldErrorsMessage } from './field-errors';
import { goQuote } from './go-quote';
import { formatGroupKind, formatGroupResource, GroupKindLike, GroupResourceLike, toGroupKind, toGroupResource } from './group-resource';
import type { ListMeta } from './meta/list-meta';
import { StatusCauseTypes, StatusReasons, type Status, type StatusCause, type StatusDetails, type StatusReason } from './meta/status';
import { StatusError } from './status';

/** The reason Kubernetes gives when an update carries a stale resourceVersion. */
export const OPTIMISTIC_LOCK_ERROR_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

/** Messages for an expired continue token, with and without a token to go on inconsistently. */
export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';
export const INCONSISTENT_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** The generic text of a failure the server does not describe to clients. */
export const GENERIC_INTERNAL_ERROR_MESSAGE = 'an error on the server has prevented the request from succeeding';

function compactDetails(details: StatusDetails): StatusDetails | undefined {
  // Field order and omission follow the Go JSON encoding (omitempty), so bodies compare equal.
  const out: StatusDetails = {};
  if (details.name) out.name = details.name;
  if (details.group) out.group = details.group;
  if (details.kind) out.kind = details.kind;
  if (details.uid) out.uid = details.uid;
  if (details.causes && details.causes.length > 0) out.causes = details.causes;
  if (details.retryAfterSeconds) out.retryAfterSeconds = details.retryAfterSeconds;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Builds a failure Status with keys in Kubernetes' order. */
export function failureStatus(code: number, reason: StatusReason, message: string, details?: StatusDetails, metadata: ListMeta = {}): Status {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata, status: 'Failure', message, reason };
  const d = details && compactDetails(details);
  if (d) status.details = d;
  status.code = code;
  return status;
}

function make(code: number, reason: StatusReason, message: string, details?: StatusDetails, metadata?: ListMeta): StatusError {
  return new StatusError(failureStatus(code, reason, message, details, metadata));
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return String(reason);
}

function resourceDetails(resource: GroupResourceLike, name?: string): StatusDetails {
  const gr = toGroupResource(resource);
  return { name, group: gr.group, kind: gr.resource };
}

/** 404: `pods "x" not found`, `deployments.apps "x" not found`. */
export function newNotFound(resource: GroupResourceLike, name: string): StatusError {
  return make(404, StatusReasons.NotFound, `${formatGroupResource(resource)} ${goQuote(name)} not found`, resourceDetails(resource, name));
}

/** 409 AlreadyExists: `pods "x" already exists`. */
export function newAlreadyExists(resource: GroupResourceLike, name: string): StatusError {
  return make(409, StatusReasons.AlreadyExists, `${formatGroupResource(resource)} ${goQuote(name)} already exists`, resourceDetails(resource, name));
}

/** 409 AlreadyExists for a generated name that collided; the client may retry. */
export function newGenerateNameConflict(resource: GroupResourceLike, name: string, retryAfterSeconds: number): StatusError {
  return make(
    409,
    StatusReasons.AlreadyExists,
    `${formatGroupResource(resource)} ${goQuote(name)} already exists, the server was not able to generate a unique name for the object`,
    { ...resourceDetails(resource, name), retryAfterSeconds },
  );
}

/** 409 Conflict: `Operation cannot be fulfilled on pods "x": <reason>`. */
export function newConflict(resource: GroupResourceLike, name: string, reason: Error | string): StatusError {
  return make(
    409,
    StatusReasons.Conflict,
    `Operation cannot be fulfilled on ${formatGroupResource(resource)} ${goQuote(name)}: ${reasonText(reason)}`,
    resourceDetails(resource, name),
  );
}

/** 409 Conflict of server-side apply; each cause names a conflicting field and its manager. */
export function newApplyConflict(causes: StatusCause[], message: string): StatusError {
  return make(409, StatusReasons.Conflict, message, { causes });
}

/** 422: `Pod "x" is invalid: [spec.containers[0].name: Required value, ...]`, one cause per field error. */
/** The field errors an Invalid Status lists; past them it says how many more there were. */
export const MAX_REPORTED_FIELD_ERRORS = 100;

export function newInvalid(kind: GroupKindLike, name: string, errors: readonly FieldError[]): StatusError {
  const gk = toGroupKind(kind);
  // A body of a few hundred thousand bad keys would otherwise be answered with a hundred megabytes.
  const shown = errors.length > MAX_REPORTED_FIELD_ERRORS ? errors.slice(0, MAX_REPORTED_FIELD_ERRORS) : errors;
  const causes: StatusCause[] = shown.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  let aggregate = fieldErrorsMessage(shown);
  if (shown.length < errors.length) {
    const more = errors.length - shown.length;
    aggregate = `[${[...new Set(shown.map(fieldErrorMessage))].join(', ')}, and ${more} more ${more === 1 ? 'error' : 'errors'}]`;
    causes.push({ reason: 'FieldValueInvalid', message: `${more} more field errors not shown`, field: '' });
  }
  const head = `${formatGroupKind(gk)} ${goQuote(name)} is invalid`;
  return make(422, StatusReasons.Invalid, aggregate ? `${head}: ${aggregate}` : head, {
    name,
    group: gk.group,
    kind: gk.kind,
    causes,
  });
}

/** 400 with the given message. */
export function newBadRequest(message: string): StatusError {
  return make(400, StatusReasons.BadRequest, message);
}

/** 410 Gone. */
export function newGone(message: string): StatusError {
  return make(410, StatusReasons.Gone, message);
}

/** 410 Expired: the requested resourceVersion or continue token is no longer available. */
export function newResourceExpired(message: string): StatusError {
  return make(410, StatusReasons.Expired, message);
}

/**
 * 410 Expired for a watch or list from a compacted revision: `too old resource version: 5 (10)`,
 * where the second number is the newest revision no longer served.
 */
export function newTooOldResourceVersion(requested: number, newestUnavailable: number): StatusError {
  return newResourceExpired(`too old resource version: ${requested} (${newestUnavailable})`);
}

/**
 * 410 Expired for a continue token past its life. With `inconsistentContinue`, the Status carries
 * a token in `metadata.continue` that resumes the list at the latest revision.
 */
export function newContinueExpired(inconsistentContinue?: string): StatusError {
  if (inconsistentContinue) {
    return make(410, StatusReasons.Expired, INCONSISTENT_CONTINUE_MESSAGE, undefined, { continue: inconsistentContinue });
  }
  return newResourceExpired(CONTINUE_EXPIRED_MESSAGE);
}

/** 429 with a retry hint. */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return make(429, StatusReasons.TooManyRequests, message, { retryAfterSeconds });
}

/** 504 Timeout: `Timeout: <message>`. */
export function newTimeout(message: string, retryAfterSeconds = 0): StatusError {
  return make(504, StatusReasons.Timeout, `Timeout: ${message}`, { retryAfterSeconds });
}

/**
 * 504 Timeout when a read asks for a revision the server has not reached within its wait:
 * `Timeout: Too large resource version: 15, current: 10`.
 */
export function newTooLargeResourceVersion(requested: number, current: number, retryAfterSeconds: number): StatusError {
  return make(504, StatusReasons.Timeout, `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: StatusCauseTypes.ResourceVersionTooLarge, message: 'Too large resource version' }],
    retryAfterSeconds,
  });
}

/** 500 ServerTimeout: the operation could not complete in time; the client should retry. */
export function newServerTimeout(resource: GroupResourceLike, operation: string, retryAfterSeconds: number): StatusError {
  const gr = toGroupResource(resource);
  return make(
    500,
    StatusReasons.ServerTimeout,
    `The ${operation} operation against ${formatGroupResource(gr)} could not be completed at this time, please try again.`,
    { name: operation, group: gr.group, kind: gr.resource, retryAfterSeconds },
  );
}

/** 406 when none of the media types in Accept can be served. */
export function newNotAcceptable(accepted: readonly string[]): StatusError {
  return make(406, StatusReasons.NotAcceptable, `only the following media types are accepted: ${accepted.join(', ')}`);
}

/** 415 when the request body's content type cannot be decoded. */
export function newUnsupportedMediaType(accepted: readonly string[]): StatusError {
  return make(
    415,
    StatusReasons.UnsupportedMediaType,
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

/** 405: `<action> is not supported on resources of kind "pods"`. */
export function newMethodNotSupported(resource: GroupResourceLike, action: string): StatusError {
  const gr = toGroupResource(resource);
  return make(405, StatusReasons.MethodNotAllowed, `${action} is not supported on resources of kind ${goQuote(formatGroupResource(gr))}`, {
    group: gr.group,
    kind: gr.resource,
  });
}

/** 403: `pods "x" is forbidden: <reason>`; without a name `pods is forbidden: ...`; without a resource `forbidden: ...`. */
export function newForbidden(resource: GroupResourceLike | undefined, name: string, reason: Error | string): StatusError {
  const gr = resource === undefined ? { group: '', resource: '' } : toGroupResource(resource);
  const text = reasonText(reason);
  let message: string;
  if (!gr.group && !gr.resource) message = `forbidden: ${text}`;
  else if (!name) message = `${formatGroupResource(gr)} is forbidden: ${text}`;
  else message = `${formatGroupResource(gr)} ${goQuote(name)} is forbidden: ${text}`;
  return make(403, StatusReasons.Forbidden, message, resourceDetails(gr, name));
}

/** 401; the message defaults to `not authorized`. */
export function newUnauthorized(reason = ''): StatusError {
  return make(401, StatusReasons.Unauthorized, reason || 'not authorized');
}

/** 413: `Request entity too large: <message>`. */
export function newRequestEntityTooLarge(message: string): StatusError {
  return make(413, StatusReasons.RequestEntityTooLarge, `Request entity too large: ${message}`);
}

/**
 * 500: `Internal error occurred: <message>`. Only an Error's message is used, never its stack;
 * callers pass something safe to show.
 */
export function newInternalError(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : typeof err === 'string' ? err : GENERIC_INTERNAL_ERROR_MESSAGE;
  return make(500, StatusReasons.InternalError, `Internal error occurred: ${text}`, { causes: [{ message: text }] });
}

/** 503 with the given message. */
export function newServiceUnavailable(reason: string): StatusError {
  return make(503, StatusReasons.ServiceUnavailable, reason);
}

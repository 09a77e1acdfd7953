import { STATUS_CODES } from 'node:http';

import { failureStatus, type Status, type StatusReason } from '@svc/machinery';

// The Status model and its error are machinery's; the serving shell adds the answers it gives itself.
export { failureStatus, isStatus, StatusError } from '@svc/machinery';
export type { Status, StatusDetails, StatusReason } from '@svc/machinery';

// The texts below are Kubernetes' own, so clients and people see what they know. Its generic server
// responses also carry an empty `details` object, which machinery's constructors leave out.
export function withEmptyDetails(status: Status): Status {
  // In Kubernetes' field order: details before code.
  const { code, ...rest } = status;
  return { ...rest, details: status.details ?? {}, code };
}

export function notFoundStatus(): Status {
  return withEmptyDetails(failureStatus(404, 'NotFound', 'the server could not find the requested resource'));
}

export function methodNotAllowedStatus(): Status {
  return withEmptyDetails(failureStatus(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
}

export function requestEntityTooLargeStatus(limitBytes: number): Status {
  return failureStatus(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`);
}

export function badRequestStatus(message: string): Status {
  return failureStatus(400, 'BadRequest', message);
}

export function tooManyRequestsStatus(message: string, retryAfterSeconds: number): Status {
  return failureStatus(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function serviceUnavailableStatus(message: string): Status {
  return failureStatus(503, 'ServiceUnavailable', message);
}

export function timeoutStatus(message: string): Status {
  return failureStatus(504, 'Timeout', `Timeout: ${message}`);
}

export function internalErrorStatus(message: string): Status {
  return withEmptyDetails(failureStatus(500, 'InternalError', `Internal error occurred: ${message}`));
}

const REASON_BY_CODE: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * The Status for an HTTP code that reached us without one (a framework exception, say). A message that
 * is only the code's reason phrase (`Not Found`) gives way to Kubernetes' text for that code.
 */
export function statusForCode(code: number, message?: string): Status {
  const generic = message === undefined || message === '' || message === STATUS_CODES[code];
  if (generic && code === 404) return notFoundStatus();
  if (generic && code === 405) return methodNotAllowedStatus();
  const text = generic ? (STATUS_CODES[code] ?? 'unknown error').toLowerCase() : message;
  if (code === 500) return internalErrorStatus(text);
  return failureStatus(code, REASON_BY_CODE[code] ?? 'Unknown', text);
}

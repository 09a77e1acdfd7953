import { STATUS_CODES } from 'node:http';

/**
 * The minimal `Status` body every error response carries. The machinery library will own the full type
 * and its constructors; this local copy keeps the serving shell self-contained until then.
 */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'Unknown';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** An error that already knows the Status it answers with. */
export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
    this.name = 'StatusError';
  }

  get code(): number {
    return this.status.code;
  }
}

export function failureStatus(code: number, reason: StatusReason, message: string, details: StatusDetails = {}): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code };
}

// The texts below are Kubernetes' own, so clients and people see what they know.

export function notFoundStatus(): Status {
  return failureStatus(404, 'NotFound', 'the server could not find the requested resource');
}

export function methodNotAllowedStatus(): Status {
  return failureStatus(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
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
  return failureStatus(500, 'InternalError', `Internal error occurred: ${message}`);
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

export function isStatus(value: unknown): value is Status {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Status>;
  return candidate.kind === 'Status' && typeof candidate.code === 'number' && typeof candidate.message === 'string';
}

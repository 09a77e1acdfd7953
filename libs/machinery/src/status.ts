/** Why a request failed, as carried in `Status.reason`. */
export const StatusReasons = {
  Unknown: '',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Invalid: 'Invalid',
  ServerTimeout: 'ServerTimeout',
  StoreReadError: 'StoreReadError',
  Timeout: 'Timeout',
  TooManyRequests: 'TooManyRequests',
  BadRequest: 'BadRequest',
  MethodNotAllowed: 'MethodNotAllowed',
  NotAcceptable: 'NotAcceptable',
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  UnsupportedMediaType: 'UnsupportedMediaType',
  InternalError: 'InternalError',
  Expired: 'Expired',
  ServiceUnavailable: 'ServiceUnavailable',
} as const;

export type StatusReason = (typeof StatusReasons)[keyof typeof StatusReasons];

/** Reasons that carry their own meaning; for any other reason the HTTP code decides. */
export const KNOWN_STATUS_REASONS: ReadonlySet<string> = new Set(
  Object.values(StatusReasons).filter((r) => r !== StatusReasons.Unknown),
);

/** Cause types beyond the field error types. */
export const StatusCauseTypes = {
  FieldManagerConflict: 'FieldManagerConflict',
  ResourceVersionTooLarge: 'ResourceVersionTooLarge',
  UnexpectedServerResponse: 'UnexpectedServerResponse',
} as const;

/**
 * One cause of a failure. On the wire Kubernetes names the cause type `reason`
 * (Go field `Type`, JSON tag `reason`); clients written for Kubernetes read it there.
 */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  /** For errors about a resource, Kubernetes puts the resource (`pods`) here, not the kind. */
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** The body of every error response. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: StatusListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code?: number;
}

/** Whether a value (for example a response body) is a Status object. */
export function isStatus(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

/**
 * An error that is its own response: it carries the Status the API sends. The stack stays on the
 * server; only `status` goes on the wire.
 */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  readonly status: Status;

  constructor(status: Status) {
    super(status.message ?? '');
    this.status = status;
  }

  get code(): number {
    return this.status.code ?? 500;
  }

  get reason(): StatusReason {
    return this.status.reason ?? StatusReasons.Unknown;
  }

  /** Serializes as the Status, never as the error with its stack. */
  toJSON(): Status {
    return this.status;
  }
}

/** Whether a value is a StatusError, also one made by another copy of this module. */
export function isStatusError(value: unknown): value is StatusError {
  if (value instanceof StatusError) return true;
  return (
    value instanceof Error &&
    value.name === 'StatusError' &&
    isStatus((value as { status?: unknown }).status)
  );
}

import type { ListMeta } from './list-meta';

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
export const KNOWN_STATUS_REASONS: ReadonlySet<string> = new Set(Object.values(StatusReasons).filter((r) => r !== StatusReasons.Unknown));

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

/** The body of every error response (and of some successful deletes). */
export interface Status {
  apiVersion?: string;
  kind?: 'Status';
  metadata?: ListMeta;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code?: number;
}

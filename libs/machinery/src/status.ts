import { StatusReasons, type Status, type StatusReason } from './meta/status';

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
  return value instanceof Error && value.name === 'StatusError' && isStatus((value as { status?: unknown }).status);
}

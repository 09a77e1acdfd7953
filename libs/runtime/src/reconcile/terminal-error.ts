const TERMINAL = Symbol.for('svc.runtime.TerminalError');

/**
 * What a reconcile throws when trying again cannot help (a spec the user must change first, a
 * reference to something that will never exist): logged and counted as an error
 * (`controller_runtime_reconcile_errors_total`, and `controller_runtime_terminal_reconcile_errors_total`),
 * but not retried. The next change of the object, or of anything mapped to it, reconciles it again.
 * controller-runtime's `reconcile.TerminalError`.
 *
 * Given an error, it wraps it (as `cause`, with its message).
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  /** Marks the instance across copies of this module (a package loaded twice), where `instanceof` fails. */
  readonly [TERMINAL] = true;

  constructor(reason: string | Error, options?: ErrorOptions) {
    super(typeof reason === 'string' ? reason : reason.message, typeof reason === 'string' ? options : { cause: reason, ...options });
  }
}

/** Depth at which a chain of causes stops being followed (a cycle, or a pathological chain). */
const MAX_CAUSE_DEPTH = 32;

/**
 * Whether `error` is a {@link TerminalError} or wraps one: through `cause`, or in the `errors` of an
 * AggregateError (as Go's errors.Is sees through wrapping and joined errors).
 */
export function isTerminalError(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: Array<{ value: unknown; depth: number }> = [{ value: error, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > MAX_CAUSE_DEPTH) continue;
    seen.add(value);
    if ((value as Record<symbol, unknown>)[TERMINAL] === true) return true;
    pending.push({ value: (value as { cause?: unknown }).cause, depth: depth + 1 });
    if (value instanceof AggregateError) for (const inner of value.errors.slice(0, MAX_CAUSE_DEPTH)) pending.push({ value: inner, depth: depth + 1 });
  }
  return false;
}

/**
 * The message of an error from any realm (Node's own errors are not `instanceof Error` in every
 * context): its message, else its code, else the value as text.
 */
export function errorMessage(err: unknown): string {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string' && message) return message;
  const code = (err as { code?: unknown } | null | undefined)?.code;
  if (typeof code === 'string') return code;
  if (typeof err === 'object' && err !== null) return JSON.stringify(err) ?? 'unknown error';
  return String(err);
}

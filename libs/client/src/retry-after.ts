/**
 * Seconds a `Retry-After` header asks for: a non-negative integer, or an HTTP date (seconds from
 * `nowMs`, at least 0). Undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Whether an answer with `code` and a `Retry-After` hint may be sent again. 429 and 503 mean the
 * request was turned away before it was processed, so any method may repeat it; another 5xx with
 * the hint (504 "Too large resource version") only for reads, which have no effect to repeat.
 * Without the hint nothing is retried, as in client-go.
 */
export function retriableResponse(method: HttpMethod, code: number, retryAfterSeconds: number | undefined): boolean {
  if (retryAfterSeconds === undefined) return false;
  if (code === 429 || code === 503) return true;
  return code >= 500 && method === 'GET';
}

const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * Whether a failure without an answer may be retried: only reads, and only when an open
 * connection broke (a stale keep-alive socket, a server going away), as client-go does. A
 * refused connection is reported at once; the caller decides about waiting for the server.
 */
export function retriableNetworkError(method: HttpMethod, err: unknown): boolean {
  if (method !== 'GET') return false;
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && RESET_CODES.has(code);
}

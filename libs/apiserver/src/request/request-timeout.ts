import { badRequestStatus, StatusError } from '../status/status';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses the `timeout` query parameter, a Go duration (`30s`, `1m30s`, `500ms`), into milliseconds.
 * Throws a 400 StatusError with Kubernetes' message for anything else.
 */
export function parseTimeoutParameter(value: string): number {
  const invalid = () => new StatusError(badRequestStatus(`invalid timeout specified in the request URL`));
  const sign = value.startsWith('-') ? -1 : 1;
  const unsigned = value.replace(/^[-+]/, '');
  if (unsigned === '0') return 0;
  const pattern = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(unsigned)) !== null) {
    total += Number(match[1]) * UNIT_MS[match[2]];
    consumed = pattern.lastIndex;
  }
  if (consumed === 0 || consumed !== unsigned.length) throw invalid();
  return sign * total;
}

/**
 * The deadline of a non-long-running request: `--request-timeout`, shortened by a smaller `timeout`
 * parameter, as Kubernetes' WithRequestDeadline does. 0 or less means no deadline.
 */
export function effectiveRequestTimeoutMs(serverTimeoutMs: number, timeoutParameter: string | null): number {
  if (timeoutParameter === null || timeoutParameter === '') return serverTimeoutMs;
  const requested = parseTimeoutParameter(timeoutParameter);
  if (requested <= 0) return serverTimeoutMs;
  return serverTimeoutMs > 0 ? Math.min(requested, serverTimeoutMs) : requested;
}

/**
 * How long a watch stays open: its `timeoutSeconds` when given (a negative one ends it at once, as
 * Kubernetes' timer does), else (absent or 0) a random time in [min, 2*min) seconds of
 * `--min-request-timeout`, so that watches do not all reconnect at once.
 */
export function watchTimeoutSeconds(minRequestTimeoutSeconds: number, requestedSeconds?: number): number {
  if (requestedSeconds !== undefined && requestedSeconds < 0) return 0;
  if (requestedSeconds !== undefined && requestedSeconds > 0) return requestedSeconds;
  return Math.floor(minRequestTimeoutSeconds * (1 + Math.random()));
}

import type { HealthEndpoint, HealthReport } from './health-check';

export interface CheckOutcome {
  name: string;
  outcome: 'ok' | 'excluded' | 'failed';
}

/**
 * Kubernetes' text for a health endpoint: one `[+]`/`[-]` line per check, a warning for excludes that
 * matched nothing, then `<endpoint> check passed` (verbose) or `ok`; a failure is always verbose, keeps
 * the reason out of the public answer and ends with `<endpoint> check failed`.
 */
export function formatHealthReport(endpoint: HealthEndpoint, outcomes: CheckOutcome[], verbose: boolean, unmatchedExcludes: string[] = []): HealthReport {
  let lines = '';
  for (const { name, outcome } of outcomes) {
    if (outcome === 'excluded') lines += `[+]${name} excluded: ok\n`;
    else if (outcome === 'failed') lines += `[-]${name} failed: reason withheld\n`;
    else lines += `[+]${name} ok\n`;
  }
  if (unmatchedExcludes.length > 0) {
    lines += `warn: some health checks cannot be excluded: no matches for ${unmatchedExcludes.map(goQuote).join(',')}\n`;
  }
  if (outcomes.some((o) => o.outcome === 'failed')) {
    // Go's http.Error appends the newline.
    return { status: 500, body: `${lines}${endpoint} check failed\n` };
  }
  return { status: 200, body: verbose ? `${lines}${endpoint} check passed\n` : 'ok' };
}

/** The answer of `/<endpoint>/<check>`; Kubernetes does show the reason here. */
export function formatSingleCheck(error: unknown): HealthReport {
  if (error === undefined) return { status: 200, body: 'ok' };
  return { status: 500, body: `internal server error: ${reasonOf(error)}\n` };
}

export function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

function goQuote(value: string): string {
  return JSON.stringify(value);
}

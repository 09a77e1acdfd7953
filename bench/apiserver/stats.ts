/** Nearest-rank percentile of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface LatencySummary {
  p50: number;
  p99: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

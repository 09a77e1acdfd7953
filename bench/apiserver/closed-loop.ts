import { performance } from 'node:perf_hooks';
import { summarize } from './stats';

export interface ClosedLoopOptions {
  /** Operations kept in flight at once: each worker starts its next one when the last completes. */
  concurrency: number;
  /** Operations run but not counted before the measured window. */
  warmupMs: number;
  /** Length of the measured window. */
  durationMs: number;
  /** Cumulative CPU microseconds of whoever serves the operations, read at the window's edges. */
  cpuMicros?: () => number | undefined;
}

export interface ClosedLoopResult {
  /** Operations completed inside the measured window. */
  operations: number;
  perSecond: number;
  /** Milliseconds from start to completion of operations completed inside the window. */
  p50: number;
  p99: number;
  /** CPU of the serving side per operation in the window, when `cpuMicros` was given and readable. */
  cpuMicrosPerOperation?: number;
}

/**
 * Runs `operation(worker, sequence)` from `concurrency` workers back to back for warm-up plus duration.
 * Throughput counts completions inside the window, so operations straddling its edges cost at most
 * `concurrency` operations of accuracy. The first failing operation stops the run and is rethrown.
 */
export async function closedLoop(
  options: ClosedLoopOptions,
  operation: (worker: number, sequence: number) => Promise<unknown>,
): Promise<ClosedLoopResult> {
  const started = performance.now();
  const windowStart = started + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const latencies: number[] = [];
  let failure: unknown;
  let cpuAtStart: number | undefined;
  let cpuAtEnd: number | undefined;

  const startTimer = setTimeout(() => {
    cpuAtStart = options.cpuMicros?.();
  }, options.warmupMs);
  const endTimer = setTimeout(() => {
    cpuAtEnd = options.cpuMicros?.();
  }, options.warmupMs + options.durationMs);

  const worker = async (index: number): Promise<void> => {
    for (let sequence = 0; failure === undefined; sequence++) {
      const begun = performance.now();
      if (begun >= windowEnd) return;
      try {
        await operation(index, sequence);
      } catch (error) {
        failure ??= error;
        return;
      }
      const done = performance.now();
      if (done >= windowStart && done < windowEnd) latencies.push(done - begun);
    }
  };

  try {
    await Promise.all(Array.from({ length: options.concurrency }, (_, index) => worker(index)));
  } finally {
    clearTimeout(startTimer);
    clearTimeout(endTimer);
  }
  if (failure !== undefined) throw failure;
  const seconds = options.durationMs / 1000;
  const { p50, p99 } = summarize(latencies);
  const cpu = cpuAtStart !== undefined && cpuAtEnd !== undefined ? cpuAtEnd - cpuAtStart : undefined;
  return {
    operations: latencies.length,
    perSecond: latencies.length / seconds,
    p50,
    p99,
    cpuMicrosPerOperation: cpu !== undefined && latencies.length > 0 ? cpu / latencies.length : undefined,
  };
}

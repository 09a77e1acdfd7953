import { errorMessage } from '@svc/machinery';
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

/** What one measured window saw. */
export interface LoopSample {
  /** Milliseconds from start to completion of each operation completed inside the window. */
  latencies: number[];
  seconds: number;
  /** CPU of the serving side during the window, when readable. */
  cpuMicros?: number;
  /** CPU of this process (the client) during the window. */
  clientCpuMicros: number;
}

export interface ClosedLoopResult {
  /** Operations completed inside the measured windows. */
  operations: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU of the serving side per operation, when it was readable. */
  cpuMicrosPerOperation?: number;
  /** CPU of this process (the client) per operation. */
  clientCpuMicrosPerOperation: number;
}

/**
 * Runs `operation(worker, sequence)` from `concurrency` workers back to back for warm-up plus duration.
 * Throughput counts completions inside the window, so operations straddling its edges cost at most
 * `concurrency` operations of accuracy. The first failing operation stops the run and is rethrown.
 */
export async function closedLoop(options: ClosedLoopOptions, operation: (worker: number, sequence: number) => Promise<unknown>): Promise<LoopSample> {
  const started = performance.now();
  const windowStart = started + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const latencies: number[] = [];
  let failure: unknown;
  let cpuAtStart: number | undefined;
  let cpuAtEnd: number | undefined;
  let clientAtStart = 0;
  let clientAtEnd = 0;

  // CPU is read inline rather than on timers: an operation that never leaves the microtask queue (a
  // synchronous store behind a promise) would hold timers back until the run is over.
  const worker = async (index: number): Promise<void> => {
    for (let sequence = 0; failure === undefined; sequence++) {
      const begun = performance.now();
      if (begun >= windowEnd) {
        if (clientAtEnd === 0) {
          clientAtEnd = ownCpuMicros();
          cpuAtEnd = options.cpuMicros?.();
        }
        return;
      }
      try {
        await operation(index, sequence);
      } catch (error) {
        failure ??= error;
        return;
      }
      const done = performance.now();
      if (done >= windowStart && done < windowEnd) {
        if (latencies.length === 0) {
          clientAtStart = ownCpuMicros();
          cpuAtStart = options.cpuMicros?.();
        }
        latencies.push(done - begun);
      }
    }
  };

  await Promise.all(Array.from({ length: options.concurrency }, (_, index) => worker(index)));
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(errorMessage(failure));
  const cpuMicros = cpuAtStart !== undefined && cpuAtEnd !== undefined ? cpuAtEnd - cpuAtStart : undefined;
  return { latencies, seconds: options.durationMs / 1000, cpuMicros, clientCpuMicros: clientAtEnd - clientAtStart };
}

function ownCpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** Pools the windows of one side of a comparison into one row. */
export function combine(samples: readonly LoopSample[]): ClosedLoopResult {
  const latencies = samples.flatMap((sample) => sample.latencies);
  const seconds = samples.reduce((sum, sample) => sum + sample.seconds, 0);
  const cpuKnown = samples.every((sample) => sample.cpuMicros !== undefined);
  const cpu = samples.reduce((sum, sample) => sum + (sample.cpuMicros ?? 0), 0);
  const clientCpu = samples.reduce((sum, sample) => sum + sample.clientCpuMicros, 0);
  const { p50, p99 } = summarize(latencies);
  return {
    operations: latencies.length,
    perSecond: latencies.length / seconds,
    p50,
    p99,
    cpuMicrosPerOperation: cpuKnown && latencies.length > 0 ? cpu / latencies.length : undefined,
    clientCpuMicrosPerOperation: latencies.length > 0 ? clientCpu / latencies.length : Number.NaN,
  };
}

/** A side of a comparison: runs one measured window with the given warm-up and duration. */
export type Side = (warmupMs: number, durationMs: number) => Promise<LoopSample>;

export interface InterleaveOptions {
  /** Warm-up before each side's first window. */
  warmupMs: number;
  /** Warm-up before each later window (connections are new each window). */
  rewarmMs: number;
  /** Measured time per side, split evenly over the rounds. */
  durationMs: number;
  rounds: number;
}

/**
 * Measures the sides in turn, round after round, so that load from anything else on the machine falls
 * on every side alike rather than on whichever ran during a busy spell.
 */
export async function interleave(sides: readonly Side[], options: InterleaveOptions): Promise<ClosedLoopResult[]> {
  const samples = sides.map((): LoopSample[] => []);
  const slice = options.durationMs / options.rounds;
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, side] of sides.entries()) {
      samples[index].push(await side(round === 0 ? options.warmupMs : options.rewarmMs, slice));
    }
  }
  return samples.map(combine);
}

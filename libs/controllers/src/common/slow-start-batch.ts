/** Kubernetes' SlowStartInitialBatchSize: the first batch of creates is a single call. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

export interface SlowStartOutcome {
  /** Calls that succeeded. */
  successes: number;
  /** The first failure of the batch that stopped the run, if one did. */
  error?: unknown;
}

/**
 * Calls `fn` `count` times in batches of 1, 2, 4, ... run in parallel, stopping after the first batch
 * with a failure (Kubernetes' slowStartBatch). A quota or a refusal that would fail every call then
 * costs one call instead of `count`, and a healthy run still gets wide quickly.
 */
export async function slowStartBatch(count: number, initialBatchSize: number, fn: () => Promise<void>): Promise<SlowStartOutcome> {
  let remaining = count;
  let successes = 0;
  for (let size = Math.min(remaining, initialBatchSize); size > 0; size = Math.min(2 * size, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: size }, async () => fn()));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += size - failures.length;
    if (failures.length > 0) return { successes, error: failures[0].reason };
    remaining -= size;
  }
  return { successes };
}

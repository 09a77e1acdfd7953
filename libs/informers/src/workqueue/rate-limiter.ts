/**
 * Decides how long a key waits before it is retried, as client-go's `workqueue.RateLimiter`.
 * Durations are in milliseconds.
 */
export interface RateLimiter<K = string> {
  /** How long `key` should wait now; records one more failure for per-key limiters. */
  when(key: K): number;
  /** The key is done being retried (it succeeded or was given up): stop tracking it. */
  forget(key: K): void;
  /** How many times `key` has been rate limited since it was last forgotten. */
  numRequeues(key: K): number;
}

/** Identity of a key for per-key limiters; without it keys are compared as Map keys. */
export type RateLimiterKeyFn<K> = (key: K) => string;

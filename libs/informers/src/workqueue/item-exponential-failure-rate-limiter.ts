import { RateLimiter, RateLimiterKeyFn } from './rate-limiter';

export interface ItemExponentialFailureRateLimiterOptions<K> {
  /** Wait after the first failure. */
  baseDelayMs: number;
  /** Longest wait, whatever the number of failures. */
  maxDelayMs: number;
  keyFn?: RateLimiterKeyFn<K>;
}

/**
 * Per-key exponential backoff: base * 2^failures, capped at the maximum, until the key is forgotten.
 * With client-go's controller defaults (5 ms, 1000 s) the waits are 5, 10, 20, 40 ms, ... 1000 s.
 */
export class ItemExponentialFailureRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<unknown, number>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly identify: (key: K) => unknown;

  constructor(options: ItemExponentialFailureRateLimiterOptions<K>) {
    if (!(options.baseDelayMs >= 0) || !(options.maxDelayMs >= 0)) {
      throw new RangeError('backoff delays must be non-negative numbers');
    }
    this.baseDelayMs = options.baseDelayMs;
    this.maxDelayMs = options.maxDelayMs;
    this.identify = options.keyFn ?? ((key: K) => key);
  }

  when(key: K): number {
    const id = this.identify(key);
    const exponent = this.failures.get(id) ?? 0;
    this.failures.set(id, exponent + 1);
    // 2 ** exponent reaches Infinity rather than overflowing, and the cap handles that.
    return Math.min(this.baseDelayMs * 2 ** exponent, this.maxDelayMs);
  }

  numRequeues(key: K): number {
    return this.failures.get(this.identify(key)) ?? 0;
  }

  forget(key: K): void {
    this.failures.delete(this.identify(key));
  }
}

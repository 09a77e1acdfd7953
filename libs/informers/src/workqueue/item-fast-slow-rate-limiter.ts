import { RateLimiter, RateLimiterKeyFn } from './rate-limiter';

export interface ItemFastSlowRateLimiterOptions<K> {
  fastDelayMs: number;
  slowDelayMs: number;
  /** Failures retried after the fast delay before the slow delay applies. */
  maxFastAttempts: number;
  keyFn?: RateLimiterKeyFn<K>;
}

/** A quick retry for the first few failures of a key, a slow one after that. */
export class ItemFastSlowRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<unknown, number>();
  private readonly identify: (key: K) => unknown;

  constructor(private readonly options: ItemFastSlowRateLimiterOptions<K>) {
    this.identify = options.keyFn ?? ((key: K) => key);
  }

  when(key: K): number {
    const id = this.identify(key);
    const failures = (this.failures.get(id) ?? 0) + 1;
    this.failures.set(id, failures);
    return failures <= this.options.maxFastAttempts ? this.options.fastDelayMs : this.options.slowDelayMs;
  }

  numRequeues(key: K): number {
    return this.failures.get(this.identify(key)) ?? 0;
  }

  forget(key: K): void {
    this.failures.delete(this.identify(key));
  }
}

import { RateLimiter } from './rate-limiter';

/** Caps the wait of another limiter, so a key is never held back longer than `maxDelayMs`. */
export class WithMaxWaitRateLimiter<K = string> implements RateLimiter<K> {
  constructor(
    private readonly limiter: RateLimiter<K>,
    private readonly maxDelayMs: number,
  ) {}

  when(key: K): number {
    return Math.min(this.limiter.when(key), this.maxDelayMs);
  }

  numRequeues(key: K): number {
    return this.limiter.numRequeues(key);
  }

  forget(key: K): void {
    this.limiter.forget(key);
  }
}

import { QueueClock, realQueueClock } from './clock';
import { RateLimiter } from './rate-limiter';

export interface BucketRateLimiterOptions {
  /** Tokens added per second. */
  qps: number;
  /** Bucket size: how many retries may go at once after a quiet spell. */
  burst: number;
  clock?: QueueClock;
}

/**
 * An overall token bucket shared by all keys, as client-go's `BucketRateLimiter` over
 * golang.org/x/time/rate: each call reserves one token, the bucket may go into debt, and the wait is
 * the time until the debt is paid. It tracks no key, so `numRequeues` is always 0.
 */
export class BucketRateLimiter<K = string> implements RateLimiter<K> {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: QueueClock;
  private tokens: number;
  private last: number | undefined;

  constructor(options: BucketRateLimiterOptions) {
    if (!(options.qps > 0)) throw new RangeError('qps must be a positive number');
    if (!(options.burst >= 1)) throw new RangeError('burst must be at least 1');
    this.qps = options.qps;
    this.burst = options.burst;
    this.clock = options.clock ?? realQueueClock;
    this.tokens = options.burst;
  }

  when(_key: K): number {
    const now = this.clock.now();
    const elapsed = this.last === undefined ? 0 : Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  numRequeues(_key: K): number {
    return 0;
  }

  forget(_key: K): void {
    // The bucket is shared by all keys; there is nothing per key to forget.
  }
}

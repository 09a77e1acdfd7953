import { RateLimiter } from './rate-limiter';

/**
 * Asks every limiter and keeps the longest wait (and the largest requeue count). Every limiter is
 * asked, so each records the attempt. With a token bucket among them, the burst can appear exceeded
 * when some keys were separately delayed longer.
 */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  private readonly limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(key: K): number {
    let longest = 0;
    for (const limiter of this.limiters) longest = Math.max(longest, limiter.when(key));
    return longest;
  }

  numRequeues(key: K): number {
    let most = 0;
    for (const limiter of this.limiters) most = Math.max(most, limiter.numRequeues(key));
    return most;
  }

  forget(key: K): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }
}

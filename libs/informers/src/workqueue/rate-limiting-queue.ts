import { DelayingQueue, DelayingWorkQueueInterface } from './delaying-queue';
import { defaultControllerRateLimiter } from './default-controller-rate-limiter';
import { WorkQueueOptions } from './queue';
import { RateLimiter } from './rate-limiter';

/** The contract of client-go's `workqueue.RateLimitingInterface`. */
export interface RateLimitingWorkQueueInterface<K> extends DelayingWorkQueueInterface<K> {
  addRateLimited(key: K): void;
  forget(key: K): void;
  numRequeues(key: K): number;
}

export interface RateLimitingQueueOptions<K> extends WorkQueueOptions<K> {
  /** Defaults to {@link defaultControllerRateLimiter} on the queue's clock and key function. */
  rateLimiter?: RateLimiter<K>;
}

/**
 * A delaying queue whose retries wait as a rate limiter says. Call {@link forget} when a key
 * succeeds (or is given up), or its backoff keeps growing; `forget` does not replace `done`.
 */
export class RateLimitingQueue<K = string> extends DelayingQueue<K> implements RateLimitingWorkQueueInterface<K> {
  readonly rateLimiter: RateLimiter<K>;

  constructor(options: RateLimitingQueueOptions<K> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>({ clock: this.clock, keyFn: options.keyFn });
  }

  /** Adds `key` after the wait the rate limiter gives it, which counts one more requeue. */
  addRateLimited(key: K): void {
    // Unlike client-go, a shut-down queue does not ask the limiter, so no failure is recorded for
    // a key that will never be retried.
    if (this.shuttingDown()) return;
    this.addAfter(key, this.rateLimiter.when(key));
  }

  forget(key: K): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }
}

import { QueueClock } from './clock';
import { BucketRateLimiter } from './bucket-rate-limiter';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter';
import { MaxOfRateLimiter } from './max-of-rate-limiter';
import { RateLimiter, RateLimiterKeyFn } from './rate-limiter';

export interface DefaultControllerRateLimiterOptions<K> {
  clock?: QueueClock;
  keyFn?: RateLimiterKeyFn<K>;
}

/** client-go's controller defaults: per-key backoff from 5 ms to 1000 s. */
export const DEFAULT_CONTROLLER_BACKOFF = { baseDelayMs: 5, maxDelayMs: 1_000_000 } as const;
/** client-go's controller defaults: 10 retries a second overall, in bursts of 100. */
export const DEFAULT_CONTROLLER_BUCKET = { qps: 10, burst: 100 } as const;

/**
 * client-go's `DefaultControllerRateLimiter`: the longer of a per-key exponential backoff and an
 * overall token bucket, which only limits how fast retries go out in total.
 */
export function defaultControllerRateLimiter<K = string>(options: DefaultControllerRateLimiterOptions<K> = {}): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>({ ...DEFAULT_CONTROLLER_BACKOFF, keyFn: options.keyFn }),
    new BucketRateLimiter<K>({ ...DEFAULT_CONTROLLER_BUCKET, clock: options.clock }),
  );
}

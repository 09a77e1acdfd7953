import { BucketRateLimiter } from './bucket-rate-limiter';
import { defaultControllerRateLimiter } from './default-controller-rate-limiter';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter';
import { ItemFastSlowRateLimiter } from './item-fast-slow-rate-limiter';
import { ManualQueueClock } from './manual-clock';
import { MaxOfRateLimiter } from './max-of-rate-limiter';
import { RateLimiter } from './rate-limiter';
import { WithMaxWaitRateLimiter } from './with-max-wait-rate-limiter';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles the wait per failure from 5 ms, capped at 1000 s, and resets on forget', () => {
    const limiter = new ItemExponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000_000 });
    const waits = Array.from({ length: 20 }, () => limiter.when('a'));
    expect(waits.slice(0, 6)).toEqual([5, 10, 20, 40, 80, 160]);
    // 5 ms * 2^17 = 655.36 s is the last wait under the cap.
    expect(waits[17]).toBe(655_360);
    expect(waits[18]).toBe(1_000_000);
    expect(waits[19]).toBe(1_000_000);
    expect(limiter.numRequeues('a')).toBe(20);

    expect(limiter.when('b')).toBe(5);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
    expect(limiter.numRequeues('b')).toBe(1);
  });

  it('stays at the cap after very many failures', () => {
    const limiter = new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 60_000 });
    let last = 0;
    for (let i = 0; i < 2_000; i++) last = limiter.when('a');
    expect(last).toBe(60_000);
  });

  it('tracks object keys by their key function', () => {
    const limiter = new ItemExponentialFailureRateLimiter<{ name: string }>({
      baseDelayMs: 5,
      maxDelayMs: 1_000,
      keyFn: (k) => k.name,
    });
    limiter.when({ name: 'a' });
    expect(limiter.when({ name: 'a' })).toBe(10);
    limiter.forget({ name: 'a' });
    expect(limiter.numRequeues({ name: 'a' })).toBe(0);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces retries at the rate, refilling as time passes', () => {
    const clock = new ManualQueueClock();
    const bucket = new BucketRateLimiter({ qps: 10, burst: 100, clock });
    for (let i = 0; i < 100; i++) expect(bucket.when(`k${i}`)).toBe(0);
    expect(bucket.when('x')).toBe(100);
    expect(bucket.when('y')).toBe(200);
    expect(bucket.when('z')).toBe(300);

    // Three tokens of debt, one second of refill at 10 per second: 7 left.
    clock.advance(1_000);
    for (let i = 0; i < 7; i++) expect(bucket.when(`r${i}`)).toBe(0);
    expect(bucket.when('r7')).toBe(100);
    expect(bucket.numRequeues('x')).toBe(0);
  });

  it('never holds more than its burst', () => {
    const clock = new ManualQueueClock();
    const bucket = new BucketRateLimiter({ qps: 10, burst: 2, clock });
    clock.advance(3_600_000);
    expect(bucket.when('a')).toBe(0);
    expect(bucket.when('b')).toBe(0);
    expect(bucket.when('c')).toBe(100);
  });

  it('rejects a rate or burst that could never grant a token', () => {
    expect(() => new BucketRateLimiter({ qps: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new BucketRateLimiter({ qps: 1, burst: 0 })).toThrow(RangeError);
  });
});

describe('MaxOfRateLimiter', () => {
  it('keeps the longest wait and the largest requeue count, and forgets in every limiter', () => {
    const clock = new ManualQueueClock();
    const slow = new ItemFastSlowRateLimiter({ fastDelayMs: 1, slowDelayMs: 1_000, maxFastAttempts: 2 });
    const backoff = new ItemExponentialFailureRateLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 });
    const max = new MaxOfRateLimiter(slow, backoff, new BucketRateLimiter({ qps: 1, burst: 1, clock }));
    expect(max.when('a')).toBe(100);
    expect(max.when('a')).toBe(1_000); // the bucket, one token in debt
    expect(max.when('a')).toBe(2_000); // bucket two in debt, slow limiter at 1 s, backoff 400 ms
    clock.advance(10_000);
    expect(max.when('a')).toBe(1_000); // the slow limiter, past its fast attempts
    expect(max.numRequeues('a')).toBe(4);
    max.forget('a');
    expect(max.numRequeues('a')).toBe(0);
    expect(slow.numRequeues('a')).toBe(0);
    expect(backoff.numRequeues('a')).toBe(0);
  });

  it('is the composition of the default controller limiter', () => {
    const clock = new ManualQueueClock();
    const limiter: RateLimiter = defaultControllerRateLimiter({ clock });
    // Per-key backoff dominates while the bucket has tokens.
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a')]).toEqual([5, 10, 20]);
    for (let i = 0; i < 97; i++) expect(limiter.when(`k${i}`)).toBe(5);
    // The bucket (10 qps, burst 100) is empty: it now dominates a first failure.
    expect(limiter.when('fresh')).toBe(100);
    expect(limiter.numRequeues('a')).toBe(3);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    clock.advance(60_000);
    expect(limiter.when('a')).toBe(5);
  });
});

describe('ItemFastSlowRateLimiter and WithMaxWaitRateLimiter', () => {
  it('retries fast a few times, then slowly, and caps a wait', () => {
    const limiter = new ItemFastSlowRateLimiter({ fastDelayMs: 5, slowDelayMs: 10_000, maxFastAttempts: 2 });
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a')]).toEqual([5, 5, 10_000]);
    limiter.forget('a');
    expect(limiter.when('a')).toBe(5);

    const capped = new WithMaxWaitRateLimiter(new ItemExponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000_000 }), 30);
    expect([capped.when('a'), capped.when('a'), capped.when('a'), capped.when('a')]).toEqual([5, 10, 20, 30]);
    expect(capped.numRequeues('a')).toBe(4);
    capped.forget('a');
    expect(capped.numRequeues('a')).toBe(0);
  });
});

import { Backoff, jitteredPeriod } from './backoff';
import { ManualQueueClock } from './workqueue';

describe('Backoff', () => {
  it('doubles up to the cap, each delay drawn from [d/2, d)', () => {
    const clock = new ManualQueueClock();
    const low = new Backoff({ initialMs: 100, maxMs: 1_000 }, clock, () => 0);
    expect([1, 2, 3, 4, 5, 6].map(() => low.next())).toEqual([50, 100, 200, 400, 500, 500]);
    const high = new Backoff({ initialMs: 100, maxMs: 1_000 }, clock, () => 0.999);
    const delays = [1, 2, 3, 4, 5].map(() => high.next());
    expect(delays[0]).toBeCloseTo(99.95);
    expect(delays[4]).toBeCloseTo(999.5);
  });

  it('spreads the retries of many clients that failed at the same moment', () => {
    const clock = new ManualQueueClock();
    const firstDelays = Array.from({ length: 200 }, () => new Backoff({ initialMs: 1_000 }, clock).next());
    expect(Math.min(...firstDelays)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...firstDelays)).toBeLessThan(1_000);
    expect(new Set(firstDelays.map((d) => Math.floor(d / 50))).size).toBeGreaterThan(5);
  });

  it('starts over after a quiet period, or when reset', () => {
    const clock = new ManualQueueClock();
    const b = new Backoff({ initialMs: 100, maxMs: 10_000, resetAfterMs: 5_000 }, clock, () => 0);
    b.next();
    b.next();
    expect(b.next()).toBe(200);
    clock.advance(5_000);
    expect(b.next()).toBe(50);
    b.next();
    b.reset();
    expect(b.next()).toBe(50);
  });

  it('draws resync periods from [p, 2p)', () => {
    expect(jitteredPeriod(1_000, () => 0)).toBe(1_000);
    expect(jitteredPeriod(1_000, () => 0.5)).toBe(1_500);
    for (let i = 0; i < 100; i++) {
      const p = jitteredPeriod(12 * 3_600_000);
      expect(p).toBeGreaterThanOrEqual(12 * 3_600_000);
      expect(p).toBeLessThan(24 * 3_600_000);
    }
  });
});

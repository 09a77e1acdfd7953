import type { Clock } from './clock';
import { TokenBucket } from './token-bucket';

/** A clock that moves only when the test says so. */
class ManualClock implements Clock {
  private t = 0;
  private sleepers: Array<{ at: number; resolve: () => void; reject: (e: unknown) => void }> = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const sleeper = { at: this.t + ms, resolve, reject };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal.reason as Error);
      });
    });
  }

  async advance(ms: number): Promise<void> {
    this.t += ms;
    const due = this.sleepers.filter((s) => s.at <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.at > this.t);
    due.forEach((s) => s.resolve());
    await new Promise((r) => setImmediate(r));
  }
}

describe('TokenBucket', () => {
  it('lets a burst through at once, then one request per 1/qps seconds', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(2, 3, clock);
    const done: number[] = [];
    for (let i = 0; i < 6; i++) void bucket.wait().then(() => done.push(i));
    await clock.advance(0);
    expect(done).toEqual([0, 1, 2]);
    await clock.advance(499);
    expect(done).toEqual([0, 1, 2]);
    await clock.advance(1);
    expect(done).toEqual([0, 1, 2, 3]);
    await clock.advance(500);
    expect(done).toEqual([0, 1, 2, 3, 4]);
    await clock.advance(500);
    expect(done).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refills while idle, up to the burst only', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(10, 2, clock);
    expect(bucket.tryAccept()).toBe(true);
    expect(bucket.tryAccept()).toBe(true);
    expect(bucket.tryAccept()).toBe(false);
    await clock.advance(100);
    expect(bucket.tryAccept()).toBe(true);
    expect(bucket.tryAccept()).toBe(false);
    await clock.advance(60_000);
    expect([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()]).toEqual([true, true, false]);
  });

  it('returns the token of an aborted wait, so later waiters are not delayed by it', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(1, 1, clock);
    await bucket.wait();
    const controller = new AbortController();
    const aborted = bucket.wait(controller.signal);
    controller.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    let served = false;
    void bucket.wait().then(() => (served = true));
    await clock.advance(999);
    expect(served).toBe(false);
    await clock.advance(1);
    expect(served).toBe(true);
  });

  it('refuses settings that could never hand out a token', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(RangeError);
    expect(() => new TokenBucket(1, 0)).toThrow(RangeError);
  });
});

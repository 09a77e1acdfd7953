import { ManualQueueClock } from './manual-clock';
import { RateLimiter } from './rate-limiter';
import { RateLimitingQueue } from './rate-limiting-queue';

describe('RateLimitingQueue', () => {
  it('retries a failing key after growing backoff, and from the start once forgotten', async () => {
    const clock = new ManualQueueClock();
    const q = new RateLimitingQueue({ clock });
    const waits: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      q.addRateLimited('a');
      const before = clock.now();
      while (q.len() === 0) clock.advance(1);
      waits.push(clock.now() - before);
      const next = await q.get();
      expect(next).toEqual({ key: 'a', shutdown: false });
      q.done('a');
    }
    expect(waits).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues('a')).toBe(4);

    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    q.addRateLimited('a');
    clock.advance(4);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
  });

  it('takes a pluggable rate limiter', () => {
    const clock = new ManualQueueClock();
    const asked: string[] = [];
    const fixed: RateLimiter = {
      when: (k) => {
        asked.push(k);
        return 1_000;
      },
      forget: () => undefined,
      numRequeues: () => 7,
    };
    const q = new RateLimitingQueue({ clock, rateLimiter: fixed });
    q.addRateLimited('x');
    clock.advance(999);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(asked).toEqual(['x']);
    expect(q.numRequeues('x')).toBe(7);
    expect(q.rateLimiter).toBe(fixed);
  });

  it('tracks object keys by the queue key function in its default limiter', () => {
    const clock = new ManualQueueClock();
    const q = new RateLimitingQueue<{ ns: string; name: string }>({
      clock,
      keyFn: (k) => `${k.ns}/${k.name}`,
    });
    q.addRateLimited({ ns: 'a', name: 'b' });
    q.addRateLimited({ ns: 'a', name: 'b' });
    expect(q.numRequeues({ ns: 'a', name: 'b' })).toBe(2);
  });

  it('neither queues nor counts a retry once shut down', () => {
    const clock = new ManualQueueClock();
    const q = new RateLimitingQueue({ clock });
    q.shutDown();
    q.addRateLimited('a');
    clock.advance(1_000);
    expect(q.len()).toBe(0);
    expect(q.numRequeues('a')).toBe(0);
  });
});

import { QueueSet, type Admission, type FairQueueClock } from './queue-set';
import { Dealer, flowHash } from './shuffle-sharding';
import { estimateSeats, levelMaxSeats } from './work-estimate';
import { requestInfo } from '../request/request-info';

/** A clock the test moves by hand. */
class ManualClock implements FairQueueClock {
  time = 0;
  private timers: Array<{ at: number; callback: () => void; cancelled: boolean }> = [];
  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number) {
    const timer = { at: this.time + ms, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }
  advance(ms: number): void {
    this.time += ms;
    for (const t of this.timers.filter((t) => !t.cancelled && t.at <= this.time)) {
      t.cancelled = true;
      t.callback();
    }
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const admitted = (a: Admission): Extract<Admission, { admitted: true }> => {
  if (!a.admitted) throw new Error(`rejected: ${a.reason}`);
  return a;
};

describe('shuffle sharding', () => {
  it('deals distinct cards within the deck, the same hand for the same hash', () => {
    const dealer = new Dealer(64, 8);
    for (const hash of [0, 1, 12345, flowHash('a', 'b'), Number.MAX_SAFE_INTEGER]) {
      const hand = dealer.deal(hash);
      expect(new Set(hand).size).toBe(8);
      expect(hand.every((c) => c >= 0 && c < 64)).toBe(true);
      expect(dealer.deal(hash)).toEqual(hand);
    }
    // Different flows rarely get the same hand.
    const hands = new Set(Array.from({ length: 200 }, (_, i) => [...dealer.deal(flowHash('schema', `user-${i}`))].sort((a, b) => a - b).join(',')));
    expect(hands.size).toBe(200);
  });
});

describe('QueueSet', () => {
  it('runs at once while seats are free, queues beyond them, and dispatches as seats free up', async () => {
    const clock = new ManualClock();
    const set = new QueueSet(2, { queues: 4, handSize: 2, queueLengthLimit: 10 }, clock);
    const a = admitted(await set.acquire({ hash: 1, width: 1, waitLimitMs: 1000 }));
    const b = admitted(await set.acquire({ hash: 1, width: 1, waitLimitMs: 1000 }));
    let third: Admission | undefined;
    void set.acquire({ hash: 1, width: 1, waitLimitMs: 1000 }).then((x) => (third = x));
    await flush();
    expect(third).toBeUndefined();
    expect(set.state()).toMatchObject({ seatsInUse: 2, waitingRequests: 1 });
    clock.advance(300);
    a.release();
    await flush();
    expect(third).toMatchObject({ admitted: true, waitedMs: 300 });
    b.release();
  });

  it('shares seats fairly between a flooding flow and a light one', async () => {
    const set = new QueueSet(1, { queues: 64, handSize: 1, queueLengthLimit: 100 }, new ManualClock());
    const heavy = flowHash('s', 'heavy');
    let light = flowHash('s', 'light');
    // Two flows in different queues (with one card per hand, the hash decides the queue).
    for (let i = 0; new Dealer(64, 1).deal(light)[0] === new Dealer(64, 1).deal(heavy)[0]; i++) light = flowHash('s', `light-${i}`);
    const first = admitted(await set.acquire({ hash: heavy, width: 1, waitLimitMs: 1e9 }));
    const order: string[] = [];
    const pending: Array<Promise<void>> = [];
    for (let i = 0; i < 20; i++)
      pending.push(
        set.acquire({ hash: heavy, width: 1, waitLimitMs: 1e9 }).then((x) => {
          order.push('heavy');
          admitted(x).release();
        }),
      );
    for (let i = 0; i < 3; i++)
      pending.push(
        set.acquire({ hash: light, width: 1, waitLimitMs: 1e9 }).then((x) => {
          order.push('light');
          admitted(x).release();
        }),
      );
    first.release();
    await Promise.all(pending);
    // The light flow's three requests are served among the first few, not behind twenty heavy ones.
    const lastLight = order.lastIndexOf('light');
    expect(lastLight).toBeLessThan(8);
  });

  it('charges a wide request its seats: it waits until enough are free', async () => {
    const set = new QueueSet(4, { queues: 8, handSize: 2, queueLengthLimit: 10 }, new ManualClock());
    const small = [0, 1, 2].map(() => set.acquire({ hash: 7, width: 1, waitLimitMs: 1e9 }));
    const held = (await Promise.all(small)).map(admitted);
    let wide: Admission | undefined;
    void set.acquire({ hash: 9, width: 3, waitLimitMs: 1e9 }).then((x) => (wide = x));
    await flush();
    expect(wide).toBeUndefined();
    held[0].release();
    await flush();
    expect(wide).toBeUndefined();
    held[1].release();
    await flush();
    expect(wide).toMatchObject({ admitted: true });
    expect(set.state().seatsInUse).toBe(4);
  });

  it('rejects when the queue is full, when the wait runs out, and at once for a level without queues', async () => {
    const clock = new ManualClock();
    const set = new QueueSet(1, { queues: 1, handSize: 1, queueLengthLimit: 1 }, clock);
    admitted(await set.acquire({ hash: 1, width: 1, waitLimitMs: 100 }));
    const waiting = set.acquire({ hash: 1, width: 1, waitLimitMs: 100 });
    expect(await set.acquire({ hash: 2, width: 1, waitLimitMs: 100 })).toMatchObject({ admitted: false, reason: 'queue-full' });
    clock.advance(100);
    expect(await waiting).toMatchObject({ admitted: false, reason: 'time-out', waitedMs: 100 });
    const reject = new QueueSet(1, undefined, clock);
    admitted(await reject.acquire({ hash: 1, width: 1, waitLimitMs: 100 }));
    expect(await reject.acquire({ hash: 1, width: 1, waitLimitMs: 100 })).toMatchObject({ admitted: false, reason: 'concurrency-limit' });
    expect(set.state()).toMatchObject({ rejected: 1, timedOut: 1 });
  });

  it('lets a waiting request go when its client does', async () => {
    const set = new QueueSet(1, { queues: 2, handSize: 1, queueLengthLimit: 5 }, new ManualClock());
    admitted(await set.acquire({ hash: 1, width: 1, waitLimitMs: 1e9 }));
    const controller = new AbortController();
    const waiting = set.acquire({ hash: 1, width: 1, waitLimitMs: 1e9, signal: controller.signal });
    controller.abort();
    expect(await waiting).toMatchObject({ admitted: false, reason: 'cancelled' });
    expect(set.state().waitingRequests).toBe(0);
  });
});

describe('work estimate', () => {
  const list = (path: string) => requestInfo('GET', path);
  it('costs a LIST one seat per 100 objects, 1 to the level maximum; everything else one seat', () => {
    expect(estimateSeats(list('/api/v1/pods'), new URLSearchParams(), 50, 10)).toBe(1);
    expect(estimateSeats(list('/api/v1/pods'), new URLSearchParams(), 450, 10)).toBe(9);
    expect(estimateSeats(list('/api/v1/pods'), new URLSearchParams('resourceVersion=0'), 450, 10)).toBe(5);
    expect(estimateSeats(list('/api/v1/pods'), new URLSearchParams(), 100_000, 10)).toBe(10);
    expect(estimateSeats(list('/api/v1/pods'), new URLSearchParams(), 100_000, 3)).toBe(3);
    expect(estimateSeats(list('/api/v1/pods'), new URLSearchParams('limit=50'), 100_000, 10)).toBe(1);
    expect(estimateSeats(list('/api/v1/pods'), new URLSearchParams(), undefined, 10)).toBe(10);
    expect(estimateSeats(list('/api/v1/namespaces/default/pods/p'), new URLSearchParams(), 100_000, 10)).toBe(1);
    expect(estimateSeats(requestInfo('GET', '/api/v1/pods', 'watch=true'), new URLSearchParams('watch=true'), 100_000, 10)).toBe(1);
    expect(estimateSeats(requestInfo('POST', '/api/v1/namespaces/default/pods'), new URLSearchParams(), 100_000, 10)).toBe(1);
    expect(levelMaxSeats(49, 6)).toBe(8);
    expect(levelMaxSeats(600, 6)).toBe(10);
    expect(levelMaxSeats(2, 1)).toBe(1);
  });
});

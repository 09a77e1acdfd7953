import { DelayingQueue } from './delaying-queue';
import { ManualQueueClock } from './manual-clock';
import { WorkQueueGetResult } from './queue';

async function key<K>(result: Promise<WorkQueueGetResult<K>>): Promise<K> {
  const next = await result;
  if (next.shutdown) throw new Error('queue shut down');
  return next.key;
}

function setup(): { q: DelayingQueue; clock: ManualQueueClock } {
  const clock = new ManualQueueClock(1_000);
  return { q: new DelayingQueue({ clock }), clock };
}

describe('DelayingQueue', () => {
  it('adds a key once its delay has passed', () => {
    const { q, clock } = setup();
    q.addAfter('a', 50);
    expect(q.len()).toBe(0);
    expect(q.delayedLen()).toBe(1);
    clock.advance(49);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(q.delayedLen()).toBe(0);
  });

  it('adds at once for a delay of zero or less', () => {
    const { q } = setup();
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    expect(q.len()).toBe(2);
    expect(q.delayedLen()).toBe(0);
  });

  it('releases delayed keys in ready-time order, whatever the order they were added in', async () => {
    const { q, clock } = setup();
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('d', 40);
    q.addAfter('b', 20);
    clock.advance(25);
    expect(q.len()).toBe(2);
    clock.advance(100);
    const order = [];
    for (let i = 0; i < 4; i++) order.push(await key(q.get()));
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('moves a waiting key earlier, never later', () => {
    const { q, clock } = setup();
    q.addAfter('a', 100);
    q.addAfter('a', 40);
    expect(q.delayedLen()).toBe(1);
    clock.advance(40);
    expect(q.len()).toBe(1);

    q.addAfter('b', 40);
    q.addAfter('b', 100);
    clock.advance(40);
    expect(q.len()).toBe(2);
    expect(q.delayedLen()).toBe(0);
  });

  it('queues a delayed key at once when it is added without delay', async () => {
    const { q, clock } = setup();
    q.addAfter('a', 1_000);
    q.add('a');
    expect(q.len()).toBe(1);
    const a = await key(q.get());
    q.done(a);
    // As in client-go the delayed entry stays and adds the key again when due.
    clock.advance(1_000);
    expect(q.len()).toBe(1);
  });

  it('does not duplicate a key that is still waiting when its delay passes', () => {
    const { q, clock } = setup();
    q.add('a');
    q.addAfter('a', 10);
    clock.advance(10);
    expect(q.len()).toBe(1);
  });

  it('serves every delayed key with a single timer', () => {
    const { q, clock } = setup();
    for (let i = 0; i < 1_000; i++) {
      q.addAfter(`k${i}`, 1 + ((i * 7919) % 500));
      expect(clock.pendingTimers()).toBe(1);
    }
    clock.advance(250);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(251);
    expect(q.len()).toBe(1_000);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('re-arms its timer when an earlier key arrives', () => {
    const { q, clock } = setup();
    q.addAfter('late', 500);
    q.addAfter('early', 5);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(5);
    expect(q.len()).toBe(1);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('drops delayed keys and its timer on shut down', () => {
    const { q, clock } = setup();
    q.addAfter('a', 10);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    q.addAfter('b', 10);
    clock.advance(100);
    expect(q.len()).toBe(0);
  });

  it('runs on the real clock under Jest fake timers', () => {
    jest.useFakeTimers();
    try {
      const q = new DelayingQueue();
      q.addAfter('a', 1_000);
      jest.advanceTimersByTime(999);
      expect(q.len()).toBe(0);
      jest.advanceTimersByTime(1);
      expect(q.len()).toBe(1);
      q.shutDown();
    } finally {
      jest.useRealTimers();
    }
  });
});

import { PullQueue, serialPulls } from './pull-queue';

describe('PullQueue', () => {
  it('hands out events in order and keeps order across compactions', () => {
    const queue = new PullQueue<number>();
    for (let i = 0; i < 5000; i++) queue.push(i);
    const out: number[] = [];
    for (let i = 0; i < 3000; i++) out.push(queue.shift()!);
    for (let i = 5000; i < 6000; i++) queue.push(i);
    while (queue.length > 0) out.push(queue.shift()!);
    expect(out).toEqual(Array.from({ length: 6000 }, (_, i) => i));
    expect(queue.shift()).toBeUndefined();
  });

  it('wakes a waiting consumer on push and on wakeUp', async () => {
    const queue = new PullQueue<string>();
    const waiting = queue.waitForMore();
    queue.push('a');
    await waiting;
    expect(queue.shift()).toBe('a');
    const again = queue.waitForMore();
    queue.wakeUp();
    await again;
    expect(queue.length).toBe(0);
  });

  it('replaces the newest waiting event and clears', () => {
    const queue = new PullQueue<string>();
    expect(queue.last()).toBeUndefined();
    queue.push('a');
    queue.push('b');
    queue.replaceLast('c');
    expect(queue.last()).toBe('c');
    queue.clear();
    expect(queue.length).toBe(0);
    expect(() => queue.replaceLast('d')).toThrow();
  });
});

describe('serialPulls', () => {
  it('starts each pull after the previous one settled, even after a failure', async () => {
    const order: string[] = [];
    let n = 0;
    const next = serialPulls(async () => {
      const i = n++;
      order.push(`start ${i}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(`end ${i}`);
      if (i === 0) throw new Error('first fails');
      return i;
    });
    const results = await Promise.allSettled([next(), next(), next()]);
    expect(order).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
  });
});

import { InFlightLimit } from './in-flight-limit';

describe('InFlightLimit', () => {
  it('runs at most its limit at once, the rest in arrival order, and passes results and errors through', async () => {
    const limit = new InFlightLimit(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const calls = [0, 1, 2, 3, 4].map((i) =>
      limit
        .run(async () => {
          running++;
          most = Math.max(most, running);
          order.push(i);
          await new Promise<void>((resolve) => releases.push(resolve));
          running--;
          if (i === 3) throw new Error('three');
          return i;
        })
        .catch((error: Error) => error.message),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([0, 1]);
    expect(limit.queued).toBe(3);
    while (releases.length > 0 || order.length < 5) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 'three', 4]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect(limit.queued).toBe(0);
  });
});

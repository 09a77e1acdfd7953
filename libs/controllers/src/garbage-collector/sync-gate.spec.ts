import { SyncGate } from './sync-gate';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('SyncGate', () => {
  it('runs at most `limit` syncs at once, and one key at a time', async () => {
    const gate = new SyncGate(2);
    const release = deferred();
    const order: string[] = [];
    let peak = 0;
    const run = (key: string, label: string) =>
      gate.run(key, async () => {
        order.push(`start ${label}`);
        peak = Math.max(peak, gate.running);
        await release.promise;
        order.push(`end ${label}`);
      });
    const all = Promise.all([run('a', 'a1'), run('a', 'a2'), run('b', 'b1'), run('c', 'c1')]);
    await new Promise((resolve) => setImmediate(resolve));
    // a1 runs; a2 holds the second slot waiting for a1; b1 and c1 wait for a slot.
    expect(order).toEqual(['start a1']);
    release.resolve();
    await all;
    expect(peak).toBeLessThanOrEqual(2);
    expect(order.indexOf('end a1')).toBeLessThan(order.indexOf('start a2'));
    expect(order.filter((e) => e.startsWith('start'))).toHaveLength(4);
    expect(gate.running).toBe(0);
  });

  it('frees the slot and the key when a sync throws', async () => {
    const gate = new SyncGate(1);
    await expect(gate.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('a', () => Promise.resolve(1))).resolves.toBe(1);
  });
});

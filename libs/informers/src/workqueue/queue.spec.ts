import { WorkQueue, WorkQueueGetResult } from './queue';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function key<K>(result: Promise<WorkQueueGetResult<K>>): Promise<K> {
  const next = await result;
  if (next.shutdown) throw new Error('queue shut down');
  return next.key;
}

/** Deterministic pseudo-random numbers in [0, 1), so a failing run can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('WorkQueue', () => {
  it('keeps a waiting key once, however often it is added', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('b');
    expect(q.len()).toBe(2);
    expect(await key(q.get())).toBe('a');
    expect(await key(q.get())).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('hands keys out in the order they became waiting', async () => {
    const q = new WorkQueue();
    for (const k of ['c', 'a', 'b', 'a']) q.add(k);
    const got = [await key(q.get()), await key(q.get()), await key(q.get())];
    expect(got).toEqual(['c', 'a', 'b']);
  });

  it('re-queues a key added during its processing only when done is called', async () => {
    const q = new WorkQueue();
    q.add('a');
    const a = await key(q.get());
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);

    // Another getter must not receive the key while it is being processed.
    let second: string | undefined;
    void key(q.get()).then((k) => (second = k));
    await nextTurn();
    expect(second).toBeUndefined();

    q.done(a);
    await nextTurn();
    expect(second).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('does not re-queue a key that was not added again', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.done(await key(q.get()));
    expect(q.len()).toBe(0);
  });

  it('ignores done for a key that is not being processed', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.done('a');
    q.done('zzz');
    expect(q.len()).toBe(1);
    expect(await key(q.get())).toBe('a');
    expect(q.len()).toBe(0);
  });

  it('wakes a waiting getter when a key is added', async () => {
    const q = new WorkQueue();
    const pending = q.get();
    q.add('x');
    await expect(pending).resolves.toEqual({ key: 'x', shutdown: false });
  });

  it('de-duplicates object keys through the key function', async () => {
    interface Request {
      namespace: string;
      name: string;
    }
    const q = new WorkQueue<Request>({ keyFn: (r) => `${r.namespace}/${r.name}` });
    q.add({ namespace: 'ns', name: 'a' });
    q.add({ namespace: 'ns', name: 'a' });
    q.add({ namespace: 'ns', name: 'b' });
    expect(q.len()).toBe(2);
    const first = await key(q.get());
    q.add({ namespace: 'ns', name: 'a' });
    expect(q.len()).toBe(1);
    q.done({ namespace: first.namespace, name: first.name });
    expect(q.len()).toBe(2);
  });

  it('never hands one key to two workers at once, and processes every add after the last start', async () => {
    const q = new WorkQueue();
    const random = mulberry32(42);
    const keys = Array.from({ length: 40 }, (_, i) => `ns/obj-${i}`);
    const pick = (): string => keys[Math.floor(random() * keys.length)];
    let seq = 0;
    const lastAdd = new Map<string, number>();
    const lastStart = new Map<string, number>();
    const inFlight = new Map<string, number>();
    let maxInFlightPerKey = 0;
    let busy = 0;
    let processed = 0;
    const addKey = (k: string): void => {
      lastAdd.set(k, ++seq);
      q.add(k);
    };

    const worker = async (): Promise<void> => {
      for (;;) {
        const next = await q.get();
        if (next.shutdown) return;
        const k = next.key;
        busy++;
        lastStart.set(k, ++seq);
        const now = (inFlight.get(k) ?? 0) + 1;
        inFlight.set(k, now);
        maxInFlightPerKey = Math.max(maxInFlightPerKey, now);
        // Processing spans turns of the event loop, so adds (of this very key too) land meanwhile.
        const turns = Math.floor(random() * 3);
        for (let i = 0; i < turns; i++) await nextTurn();
        if (random() < 0.2) addKey(random() < 0.5 ? k : pick());
        inFlight.set(k, now - 1);
        processed++;
        busy--;
        q.done(k);
      }
    };

    const workers = Array.from({ length: 8 }, () => worker());
    for (let i = 0; i < 10_000; i++) {
      addKey(pick());
      if (i % 7 === 0) await nextTurn();
    }
    for (let i = 0; i < 100_000 && (q.len() > 0 || busy > 0); i++) await nextTurn();
    expect(q.len()).toBe(0);
    expect(busy).toBe(0);
    q.shutDown();
    await Promise.all(workers);

    expect(maxInFlightPerKey).toBe(1);
    expect(processed).toBeGreaterThan(keys.length);
    for (const k of lastAdd.keys()) {
      expect(lastStart.get(k) ?? 0).toBeGreaterThan(lastAdd.get(k) ?? 0);
    }
  });

  describe('shutDown', () => {
    it('wakes every waiting getter with shutdown', async () => {
      const q = new WorkQueue();
      const getters = [q.get(), q.get(), q.get()];
      q.shutDown();
      expect(q.shuttingDown()).toBe(true);
      await expect(Promise.all(getters)).resolves.toEqual([{ shutdown: true }, { shutdown: true }, { shutdown: true }]);
      await expect(q.get()).resolves.toEqual({ shutdown: true });
    });

    it('ignores new keys, still handing out those already waiting', async () => {
      const q = new WorkQueue();
      q.add('a');
      q.shutDown();
      q.add('b');
      expect(q.len()).toBe(1);
      expect(await key(q.get())).toBe('a');
      await expect(q.get()).resolves.toEqual({ shutdown: true });
    });

    it('ends an async iteration', async () => {
      const q = new WorkQueue();
      q.add('a');
      q.add('b');
      const seen: string[] = [];
      const loop = (async () => {
        for await (const k of q) {
          seen.push(k);
          q.done(k);
          if (seen.length === 2) q.shutDown();
        }
      })();
      await loop;
      expect(seen).toEqual(['a', 'b']);
    });
  });

  describe('shutDownWithDrain', () => {
    it('waits until every key being processed is done, ignoring new adds', async () => {
      const q = new WorkQueue();
      q.add('a');
      q.add('b');
      const a = await key(q.get());
      const b = await key(q.get());
      const idle = q.get();

      let drained = false;
      const drain = q.shutDownWithDrain().then(() => (drained = true));
      await expect(idle).resolves.toEqual({ shutdown: true });
      q.add('c');
      expect(q.len()).toBe(0);

      q.done(a);
      await nextTurn();
      expect(drained).toBe(false);
      q.done(b);
      await drain;
      expect(drained).toBe(true);
    });

    it('resolves at once when nothing is being processed', async () => {
      const q = new WorkQueue();
      await expect(q.shutDownWithDrain()).resolves.toBeUndefined();
    });

    it('is cut short by shutDown', async () => {
      const q = new WorkQueue();
      q.add('a');
      await q.get();
      const drain = q.shutDownWithDrain();
      q.shutDown();
      await expect(drain).resolves.toBeUndefined();
    });
  });
});

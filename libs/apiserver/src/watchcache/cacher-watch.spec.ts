import { isStorageError, type EmbeddedStorage, type StoredObject } from '@svc/storage';
import type { CacheObjectEvent, CacheWatchEvent } from './cache-events';
import { Cacher, type CacherOptions } from './cacher';
import {
  PREFIX,
  caughtUp,
  collect,
  configMap,
  keyOf,
  nextEvent,
  nsPrefix,
  openStore,
  otherKey,
  removeTempDirs,
  rv,
  spyOn,
  summary,
  type TestObject,
} from './testing/cacher-test-support';

const objectEvents = <T extends StoredObject>(events: Array<CacheWatchEvent<T>>): Array<CacheObjectEvent<T>> =>
  events.filter((e): e is CacheObjectEvent<T> => e.type !== 'BOOKMARK');

describe('Cacher watches', () => {
  const stores: EmbeddedStorage[] = [];
  const cachers: Array<Cacher<TestObject>> = [];

  async function setup(options: Partial<CacherOptions> = {}) {
    const store = openStore();
    stores.push(store);
    const spy = spyOn(store);
    const cacher = new Cacher<TestObject>(spy.storage, { prefix: PREFIX, resource: 'configmaps', ...options });
    cachers.push(cacher);
    await cacher.start();
    return { store, spy, cacher };
  }

  afterEach(async () => {
    await Promise.all(cachers.splice(0).map((c) => c.stop()));
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  afterAll(removeTempDirs);

  test('a watch from a revision inside the window gets every later change once, in order, under concurrent writes', async () => {
    const { store, cacher } = await setup();
    const written: number[] = [];
    for (let i = 0; i < 10; i++) written.push(rv(await store.create(keyOf(`a${i}`), configMap(`a${i}`))));
    const from = written[4];

    // Writers on this resource and on another one (so revisions of this resource have gaps) run while
    // the watch starts and replays.
    const writer = async (id: number): Promise<void> => {
      for (let i = 0; i < 25; i++) {
        if (i % 3 === 0) await store.create(otherKey(`s${id}-${i}`), configMap(`s${id}-${i}`));
        const key = keyOf(`a${(id * 7 + i) % 10}`);
        const updated = await store.guaranteedUpdate<TestObject>(key, (cur) => ({ ...(cur as TestObject), data: { i: `${id}-${i}` } }));
        written.push(rv(updated));
        if (i % 5 === 0) await new Promise((r) => setImmediate(r));
      }
    };
    const writing = Promise.all([writer(1), writer(2), writer(3)]);
    await new Promise((r) => setImmediate(r));
    const watcher = await cacher.watch({ fromRevision: from });
    await writing;

    const expected = written.filter((r) => r > from).sort((a, b) => a - b);
    const events = await collect(watcher, (ev) => ev.length >= expected.length);
    expect(events.map((e) => e.revision)).toEqual(expected);
    expect(await nextEvent(watcher, 100)).toBe('timeout');
    watcher.stop();
    expect(await watcher.ended).toBeUndefined();
  });

  test('a watch from a revision older than the window is rejected with Expired (410)', async () => {
    const { store, cacher } = await setup({ windowSize: 10 });
    const first = rv(await store.create(keyOf('x0'), configMap('x0')));
    for (let i = 1; i < 30; i++) await store.create(keyOf(`x${i}`), configMap(`x${i}`));
    await caughtUp(cacher, store);
    await expect(cacher.watch({ fromRevision: first })).rejects.toMatchObject({
      code: 'Expired',
      message: expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/),
    });
    const oldest = cacher.size().oldestWatchableRevision;
    expect(oldest).toBeGreaterThan(first);
    const watcher = await cacher.watch({ fromRevision: oldest });
    const events = await collect(watcher, (ev) => ev.length === 10);
    expect(events[0].revision).toBe(oldest + 1);
    watcher.stop();
  });

  test('a watch from a future revision waits for it and then proceeds from there', async () => {
    const { store, cacher } = await setup({ waitMs: 2_000 });
    const now = await store.currentRevision();
    const pending = cacher.watch({ fromRevision: now + 2 });
    setTimeout(() => {
      void store.create(keyOf('f1'), configMap('f1')).then(() => store.create(keyOf('f2'), configMap('f2')));
    }, 100);
    const watcher = await pending;
    await store.create(keyOf('f3'), configMap('f3'));
    const events = await collect(watcher, (ev) => ev.length === 1);
    expect(summary(events)).toEqual([`ADDED f3@${now + 3}`]);
    watcher.stop();
  });

  test('a watch from a revision the store has not reached fails with TooLargeResourceVersion after the wait', async () => {
    const { store, cacher } = await setup({ waitMs: 150 });
    const now = await store.currentRevision();
    const started = Date.now();
    await expect(cacher.watch({ fromRevision: now + 100 })).rejects.toMatchObject({ code: 'TooLargeResourceVersion' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  test('watches with state start with ADDED events for what exists, in key order, then follow changes', async () => {
    const { store, cacher } = await setup();
    await store.create(keyOf('b', 'ns1'), configMap('b', {}, 'ns1'));
    await store.create(keyOf('a', 'ns1'), configMap('a', {}, 'ns1'));
    await store.create(keyOf('c', 'ns2'), configMap('c', {}, 'ns2'));
    await caughtUp(cacher, store);

    const any = await cacher.watch({ fromRevision: 0, keyPrefix: nsPrefix('ns1') });
    const mostRecent = await cacher.watch({});
    const initialEnd = await cacher.watch({ fromRevision: 0, sendInitialEvents: true, allowBookmarks: true });
    const revision = cacher.revision();
    await store.create(keyOf('d', 'ns1'), configMap('d', {}, 'ns1'));

    expect(summary(await collect(any, (ev) => ev.length === 3)).map((s) => s.split('@')[0])).toEqual(['ADDED a', 'ADDED b', 'ADDED d']);
    // A namespace's watcher never sees another namespace.
    await store.create(keyOf('e', 'ns2'), configMap('e', {}, 'ns2'));
    expect(await nextEvent(any, 100)).toBe('timeout');
    expect(summary(await collect(mostRecent, (ev) => ev.length === 4)).map((s) => s.split('@')[0])).toEqual(['ADDED a', 'ADDED b', 'ADDED c', 'ADDED d']);
    const withEnd = await collect(initialEnd, (ev) => ev.length === 6);
    expect(withEnd[3]).toEqual({ type: 'BOOKMARK', revision, initialEventsEnd: true });
    expect(withEnd[4].type).toBe('ADDED');
    // Initial ADDED events carry each object's own revision.
    expect(withEnd[0].revision).toBe(rv((withEnd[0] as CacheObjectEvent<TestObject>).object));
    for (const w of [any, mostRecent, initialEnd]) w.stop();
  });

  test('a filtered watch sees objects entering the filter as ADDED and leaving it as DELETED with their new state', async () => {
    const { store, cacher } = await setup();
    const watcher = await cacher.watch({ fromRevision: await store.currentRevision(), filter: (o) => o.metadata.labels?.app === 'web' });
    await store.create(keyOf('a'), configMap('a', { app: 'web' }));
    await store.create(keyOf('b'), configMap('b', { app: 'db' }));
    await store.update(keyOf('b'), configMap('b', { app: 'web' }));
    await store.update(keyOf('a'), configMap('a', { app: 'web', tier: '1' }));
    await store.update(keyOf('a'), configMap('a', { app: 'db' }));
    await store.update(keyOf('a'), configMap('a', { app: 'db', tier: '2' }));
    await store.delete(keyOf('a'));
    await store.delete(keyOf('b'));
    const events = objectEvents(await collect(watcher, (ev) => ev.length === 5));
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED a', 'DELETED b']);
    // Leaving the filter: the new state, which no longer matches.
    expect(events[3].object.metadata.labels).toEqual({ app: 'db' });
    expect(await nextEvent(watcher, 50)).toBe('timeout');
    watcher.stop();
  });

  test('bookmarks reach idle watchers that allow them, and never the others', async () => {
    const { store, cacher } = await setup({ bookmarkIntervalMs: 100 });
    const withBookmarks = await cacher.watch({ fromRevision: await store.currentRevision(), allowBookmarks: true });
    const without = await cacher.watch({ fromRevision: await store.currentRevision() });
    // Writes to another resource only: this one stays idle, yet its bookmarks must advance.
    const other = rv(await store.create(otherKey('s1'), configMap('s1')));
    const bookmarks = await collect(withBookmarks, (ev) => ev.some((e) => e.revision >= other), 3_000);
    expect(bookmarks.every((e) => e.type === 'BOOKMARK')).toBe(true);
    expect(bookmarks[bookmarks.length - 1].revision).toBeGreaterThanOrEqual(other);

    const mine = rv(await store.create(keyOf('m'), configMap('m')));
    expect(summary(await collect(without, (ev) => ev.length === 1))).toEqual([`ADDED m@${mine}`]);
    expect(await nextEvent(without, 300)).toBe('timeout');
    withBookmarks.stop();
    without.stop();
  });

  test('a watch with a deadline gets a bookmark shortly before it, whatever the bookmark interval', async () => {
    const { store, cacher } = await setup();
    const from = await store.currentRevision();
    const watcher = await cacher.watch({ fromRevision: from, allowBookmarks: true, deadline: Date.now() + 2_300 });
    const events = await collect(watcher, (ev) => ev.length === 1, 2_000);
    expect(events).toEqual([{ type: 'BOOKMARK', revision: from }]);
    watcher.stop();
  });

  test('a stalled watcher is cut off with WatchOverflow without holding up a fast one', async () => {
    const { store, cacher } = await setup();
    const start = await store.currentRevision();
    const stalled = await cacher.watch({ fromRevision: start, bufferLimit: 5 });
    const fast = await cacher.watch({ fromRevision: start, bufferLimit: 5 });
    const received: number[] = [];
    const consuming = (async () => {
      for await (const event of fast) {
        received.push(event.revision);
        if (received.length === 50) break;
      }
    })();
    for (let i = 0; i < 50; i++) await store.create(keyOf(`o${i}`), configMap(`o${i}`));
    await consuming;
    expect(received).toEqual(Array.from({ length: 50 }, (_, i) => start + 1 + i));

    const ended = await stalled.ended;
    expect(isStorageError(ended, 'WatchOverflow')).toBe(true);
    // The stalled consumer still gets what was queued, then the error.
    const late = [];
    let error: unknown;
    try {
      for await (const event of stalled) late.push(event.revision);
    } catch (e) {
      error = e;
    }
    expect(late).toEqual([start + 1, start + 2, start + 3, start + 4, start + 5]);
    expect(isStorageError(error, 'WatchOverflow')).toBe(true);
    expect(cacher.size().watchers).toBe(0);
  });

  test('a thousand watchers share one backend watch and all get each change', async () => {
    const { store, spy, cacher } = await setup();
    const watchers = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) => cacher.watch({ fromRevision: 0, keyPrefix: i % 2 ? nsPrefix('default') : PREFIX })),
    );
    expect(cacher.size().watchers).toBe(1_000);
    const created = await store.create(keyOf('shared'), configMap('shared'));
    const firsts = await Promise.all(watchers.map((w) => nextEvent(w, 2_000)));
    for (const event of firsts) {
      expect(event).toMatchObject({ type: 'ADDED', revision: rv(created) });
      // One decoded object fanned out, not a copy per watcher.
      expect((event as CacheObjectEvent<TestObject>).object).toBe((firsts[0] as CacheObjectEvent<TestObject>).object);
    }
    expect(Object.isFrozen((firsts[0] as CacheObjectEvent<TestObject>).object.metadata)).toBe(true);
    expect(spy.calls.get('watch')).toBe(1);
    for (const w of watchers) w.stop();
    expect(cacher.size().watchers).toBe(0);
  });
  test('direct delivery: live events go to the consumer while nothing is queued, and everything else through the iteration, in order', async () => {
    const { store, cacher } = await setup();
    const start = rv(await store.create(keyOf('a'), configMap('a')));
    const watcher = await cacher.watch({ fromRevision: start });
    const update = async (i: number): Promise<number> =>
      rv(await store.guaranteedUpdate<TestObject>(keyOf('a'), (cur) => ({ ...(cur as TestObject), data: { i: String(i) } })));
    const direct: number[] = [];

    // The consumer takes two events and then says it is full: the third waits for a pull.
    watcher.deliverDirectly((event) => direct.push(event.revision) < 2);
    const written = [await update(1), await update(2), await update(3)];
    await caughtUp(cacher, store);
    expect(direct).toEqual(written.slice(0, 2));
    expect((await collect(watcher, (events) => events.length >= 1)).map((e) => e.revision)).toEqual([written[2]]);

    // Armed again with nothing in hand: the next live event goes straight to the consumer.
    watcher.deliverDirectly((event) => direct.push(event.revision) > 0);
    written.push(await update(4));
    await caughtUp(cacher, store);
    expect(direct).toEqual([...written.slice(0, 2), written[3]]);

    // Once the consumer says it is full, events queue for the iteration; armed again, it takes what waits first, then live events.
    watcher.deliverDirectly((event) => direct.push(event.revision) < 0);
    written.push(await update(5), await update(6));
    await caughtUp(cacher, store);
    expect(direct).toEqual([...written.slice(0, 2), written[3], written[4]]);
    watcher.deliverDirectly((event) => direct.push(event.revision) > 0);
    expect(direct).toEqual([...written.slice(0, 2), ...written.slice(3, 6)]);
    written.push(await update(7));
    await caughtUp(cacher, store);
    expect(direct).toEqual([...written.slice(0, 2), ...written.slice(3, 7)]);

    // A watch's initial state goes to the consumer as it is armed.
    const withState = await cacher.watch({});
    const initial: string[] = [];
    withState.deliverDirectly((event) => initial.push(`${event.type}@${event.revision}`) > 0);
    expect(initial).toEqual([`ADDED@${written[6]}`]);
    withState.stop();

    // A stopped watch delivers nothing more.
    watcher.deliverDirectly((event) => direct.push(event.revision) > 0);
    watcher.stop();
    await update(8);
    await caughtUp(cacher, store);
    expect(direct).toHaveLength(6);
  });
});

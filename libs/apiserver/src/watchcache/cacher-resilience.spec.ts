import { isStorageError, type EmbeddedStorage } from '@svc/storage';
import { Cacher, type CacherOptions } from './cacher';
import {
  PREFIX,
  caughtUp,
  collect,
  configMap,
  keyOf,
  nextEvent,
  openStore,
  removeTempDirs,
  rv,
  spyOn,
  summary,
  tempDir,
  until,
  type TestObject,
} from './testing/cacher-test-support';

describe('Cacher when its backend watch fails', () => {
  const stores: EmbeddedStorage[] = [];
  const cachers: Array<Cacher<TestObject>> = [];

  function open(dataDir: string, options: { watchBufferLimit?: number } = {}): EmbeddedStorage {
    const store = openStore(dataDir, options);
    stores.push(store);
    return store;
  }

  async function setup(options: Partial<CacherOptions> = {}) {
    const dataDir = tempDir();
    const store = open(dataDir);
    const spy = spyOn(store);
    const cacher = new Cacher<TestObject>(spy.storage, {
      prefix: PREFIX,
      resource: 'configmaps',
      retryInitialMs: 20,
      retryMaxMs: 100,
      ...options,
    });
    cachers.push(cacher);
    await cacher.start();
    return { dataDir, store, spy, cacher };
  }

  afterEach(async () => {
    await Promise.all(cachers.splice(0).map((c) => c.stop()));
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  afterAll(removeTempDirs);

  test('an overflowing backend watch is resumed from the cache revision: client watches carry on with no gap', async () => {
    const { store, spy, cacher } = await setup({ backendBufferLimit: 3 });
    const start = await store.currentRevision();
    const watcher = await cacher.watch({ fromRevision: start });
    // Fifty writes published in one synchronous burst overflow the cacher's own storage watch.
    const created = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create(keyOf(`b${i}`), configMap(`b${i}`))));
    const events = await collect(watcher, (ev) => ev.length === 50);
    expect(events.map((e) => e.revision)).toEqual(created.map(rv));
    expect(spy.calls.get('watch')).toBeGreaterThanOrEqual(2);
    expect(cacher.ready).toBe(true);
    expect(await nextEvent(watcher, 50)).toBe('timeout');
    watcher.stop();
    expect(await watcher.ended).toBeUndefined();
  });

  test('a lost store makes the cache unready and ends client watches; it comes back when the store does', async () => {
    const { dataDir, store, spy, cacher } = await setup();
    const last = rv(await store.create(keyOf('a'), configMap('a')));
    const watcher = await cacher.watch({ fromRevision: 0 });
    expect(summary(await collect(watcher, (ev) => ev.length === 1))).toEqual([`ADDED a@${last}`]);

    await store.close();
    const ended = await watcher.ended;
    expect(isStorageError(ended, 'Unavailable')).toBe(true);
    await expect(collect(watcher, () => false, 500)).rejects.toThrow(/watch ended/);
    expect(cacher.ready).toBe(false);
    expect(cacher.readyError).toMatch(/storage watch of configmaps failed: .*closed/);

    // The store comes back (same data directory, so its history is intact): the cache resumes from
    // its revision and a client re-watching from the last revision it saw misses nothing.
    const reopened = open(dataDir);
    const next = rv(await reopened.create(keyOf('b'), configMap('b')));
    spy.swap(reopened);
    await until(3_000, () => cacher.ready);
    const again = await cacher.watch({ fromRevision: last });
    expect(summary(await collect(again, (ev) => ev.length === 1))).toEqual([`ADDED b@${next}`]);
    again.stop();
  });

  test('when the store compacted past the cache meanwhile, the cache is rebuilt from a fresh read', async () => {
    const { dataDir, store, spy, cacher } = await setup();
    const old = rv(await store.create(keyOf('a'), configMap('a')));
    await store.create(keyOf('b'), configMap('b'));
    await caughtUp(cacher, store);
    await store.close();
    await until(3_000, () => !cacher.ready);

    const reopened = open(dataDir);
    await reopened.delete(keyOf('a'));
    await reopened.create(keyOf('c'), configMap('c'));
    await reopened.compact(await reopened.currentRevision());
    spy.swap(reopened);
    await until(3_000, () => cacher.ready);

    expect(cacher.revision()).toBe(await reopened.currentRevision());
    expect((await cacher.list()).items.map((o) => o.metadata.name)).toEqual(['b', 'c']);
    expect(spy.calls.get('list')).toBeUndefined();
    // The new window starts at the fresh read: the old revision is gone for watchers too.
    await expect(cacher.watch({ fromRevision: old })).rejects.toMatchObject({ code: 'Expired' });
    const fresh = await cacher.watch({ fromRevision: 0 });
    expect(summary(await collect(fresh, (ev) => ev.length === 2)).map((s) => s.split('@')[0])).toEqual(['ADDED b', 'ADDED c']);
    fresh.stop();
  });

  test('stop ends client watches without error and refuses new ones', async () => {
    const { cacher } = await setup();
    const watcher = await cacher.watch({ fromRevision: 0 });
    await cacher.stop();
    expect(await watcher.ended).toBeUndefined();
    expect(await nextEvent(watcher, 100)).toBe('done');
    expect(cacher.ready).toBe(false);
    await expect(cacher.watch({})).rejects.toMatchObject({ code: 'Unavailable' });
  });
});

import type { EmbeddedStorage } from '@svc/storage';
import { Cacher, type CacheSize, type CacherOptions } from './cacher';
import { PREFIX, caughtUp, configMap, keyOf, nsPrefix, openStore, otherKey, removeTempDirs, rv, spyOn, type TestObject } from './testing/cacher-test-support';

describe('Cacher reads', () => {
  const stores: EmbeddedStorage[] = [];
  const cachers: Array<Cacher<TestObject>> = [];

  async function setup(options: Partial<CacherOptions> = {}, start = true) {
    const store = openStore();
    stores.push(store);
    const spy = spyOn(store);
    const cacher = new Cacher<TestObject>(spy.storage, { prefix: PREFIX, resource: 'configmaps', ...options });
    cachers.push(cacher);
    if (start) await cacher.start();
    return { store, spy, cacher };
  }

  afterEach(async () => {
    await Promise.all(cachers.splice(0).map((c) => c.stop()));
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  afterAll(removeTempDirs);

  test('lists at "any" come from memory, in key order, per namespace and through a filter', async () => {
    const { store, spy, cacher } = await setup();
    await store.create(keyOf('b', 'ns1'), configMap('b', { app: 'web' }, 'ns1'));
    await store.create(keyOf('a', 'ns2'), configMap('a', { app: 'web' }, 'ns2'));
    await store.create(keyOf('a', 'ns1'), configMap('a', { app: 'db' }, 'ns1'));
    await store.create(otherKey('s'), configMap('s'));
    await caughtUp(cacher, store);

    const all = await cacher.list();
    expect(all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['ns1/a', 'ns1/b', 'ns2/a']);
    expect(all.revision).toBe(cacher.revision());
    expect((await cacher.list({ keyPrefix: nsPrefix('ns1') })).items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    const web = await cacher.list({ filter: (o) => o.metadata.labels?.app === 'web' });
    expect(web.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['ns1/b', 'ns2/a']);
    expect(Object.isFrozen(all.items[0])).toBe(true);
    expect(() => {
      (all.items[0].metadata as { name: string }).name = 'changed';
    }).toThrow(TypeError);

    expect((await cacher.get(keyOf('a', 'ns1'))).metadata.labels).toEqual({ app: 'db' });
    await expect(cacher.get(keyOf('missing'))).rejects.toMatchObject({ code: 'KeyNotFound' });
    await expect(cacher.list({ keyPrefix: '/registry/core/secrets/' })).rejects.toMatchObject({ code: 'InvalidArgument' });
    expect(spy.calls.get('list')).toBeUndefined();
    expect(spy.calls.get('get')).toBeUndefined();
  });

  test("a page from memory carries the store's token: the store's next pages continue the same snapshot", async () => {
    const { store, spy, cacher } = await setup();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await store.create(keyOf(name, 'ns1'), configMap(name, { app: name < 'c' ? 'web' : 'db' }, 'ns1'));
    await store.create(keyOf('z', 'ns2'), configMap('z', {}, 'ns2'));

    const first = await cacher.listPage({ keyPrefix: nsPrefix('ns1'), limit: 2, consistent: true });
    expect(first?.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    expect(first?.revision).toBe(await store.currentRevision());
    expect(first?.remainingItemCount).toBe(3);
    // Writes after the first page are not part of the list it began.
    await store.create(keyOf('bb', 'ns1'), configMap('bb', {}, 'ns1'));
    await store.delete(keyOf('d', 'ns1'));
    const rest = await store.list<TestObject>(nsPrefix('ns1'), { continue: first?.continue });
    expect(rest.items.map((o) => o.metadata.name)).toEqual(['c', 'd', 'e']);
    expect(rest.revision).toBe(first?.revision);

    const last = await cacher.listPage({ keyPrefix: nsPrefix('ns1'), limit: 10, consistent: true });
    expect(last?.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'bb', 'c', 'e']);
    expect(last?.continue).toBeUndefined();
    // With a filter the page holds `limit` matches; what follows is not counted.
    const db = await cacher.listPage({ keyPrefix: nsPrefix('ns1'), limit: 1, filter: (o) => o.metadata.labels?.app === 'db' });
    expect(db?.items.map((o) => o.metadata.name)).toEqual(['c']);
    expect(db?.continue).toBeDefined();
    expect(db?.remainingItemCount).toBeUndefined();
    const exactlyFull = await cacher.listPage({ keyPrefix: nsPrefix('ns1'), limit: 2, filter: (o) => o.metadata.labels?.app === 'web' });
    expect(exactlyFull?.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    expect(exactlyFull?.continue).toBeUndefined();
    expect(spy.calls.get('list')).toBeUndefined();
  });

  test('a page is not served from a cache that is not ready', async () => {
    const { cacher } = await setup({}, false);
    await expect(cacher.listPage({ limit: 1, consistent: true })).resolves.toBeUndefined();
  });

  test('"not older than" and "most recent" reads wait for the cache to reach the revision', async () => {
    const { store, spy, cacher } = await setup();
    for (let i = 0; i < 5; i++) {
      const created = await store.create(keyOf(`n${i}`), configMap(`n${i}`));
      // Asked right after the write, before the cache necessarily saw it.
      const listed = await cacher.list({ minRevision: rv(created) });
      expect(listed.revision).toBeGreaterThanOrEqual(rv(created));
      expect(listed.items.map((o) => o.metadata.name)).toContain(`n${i}`);
      const updated = await store.update(keyOf(`n${i}`), { ...configMap(`n${i}`), data: { v: '2' } });
      expect((await cacher.get(keyOf(`n${i}`), { minRevision: rv(updated) })).data).toEqual({ v: '2' });
      await store.delete(keyOf(`n${i}`));
      await expect(cacher.get(keyOf(`n${i}`), { consistent: true })).rejects.toMatchObject({ code: 'KeyNotFound' });
      const latest = await cacher.list({ consistent: true });
      expect(latest.revision).toBe(await store.currentRevision());
      expect(latest.items).toHaveLength(0);
    }
    expect(spy.calls.get('list')).toBeUndefined();
    expect(spy.calls.get('get')).toBeUndefined();
  });

  test('a read at a revision the store has not reached fails with TooLargeResourceVersion after waitMs', async () => {
    const { store, cacher } = await setup({ waitMs: 150 });
    const ahead = (await store.currentRevision()) + 50;
    const started = Date.now();
    await expect(cacher.list({ minRevision: ahead })).rejects.toMatchObject({
      code: 'TooLargeResourceVersion',
      message: expect.stringContaining('Too large resource version'),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await expect(cacher.get(keyOf('x'), { minRevision: ahead })).rejects.toMatchObject({ code: 'TooLargeResourceVersion' });
  });

  test('reads while the cache is not ready are answered by storage', async () => {
    const { store, spy, cacher } = await setup({ waitMs: 100 }, false);
    await store.create(keyOf('a'), configMap('a', { app: 'web' }));
    await store.create(keyOf('b'), configMap('b', { app: 'db' }));
    expect(cacher.ready).toBe(false);
    const listed = await cacher.list({ filter: (o) => o.metadata.labels?.app === 'web' });
    expect(listed.items.map((o) => o.metadata.name)).toEqual(['a']);
    expect(listed.revision).toBe(await store.currentRevision());
    expect(Object.isFrozen(listed.items[0])).toBe(true);
    expect((await cacher.get(keyOf('b'))).metadata.name).toBe('b');
    expect(spy.calls.get('list')).toBe(1);
    expect(spy.calls.get('get')).toBe(1);
    await expect(cacher.watch({ fromRevision: 0 })).rejects.toMatchObject({ code: 'Unavailable' });
  });

  test('metrics hooks see dispatched events, open watchers and the cache size', async () => {
    const seen = { dispatched: 0, watchers: [] as number[], sizes: [] as CacheSize[], initialized: [] as number[] };
    const store = openStore();
    stores.push(store);
    await store.create(keyOf('pre'), configMap('pre'));
    const cacher = new Cacher<TestObject>(store, {
      prefix: PREFIX,
      resource: 'configmaps',
      metrics: {
        eventDispatched: () => seen.dispatched++,
        watchersChanged: (_r, open) => seen.watchers.push(open),
        cacheSizeChanged: (_r, size) => seen.sizes.push(size),
        initialized: (_r, objects) => seen.initialized.push(objects),
      },
    });
    cachers.push(cacher);
    await cacher.start();
    expect(seen.initialized).toEqual([1]);
    const watcher = await cacher.watch({ fromRevision: 0 });
    await store.create(keyOf('a'), configMap('a'));
    await store.create(keyOf('b'), configMap('b'));
    await caughtUp(cacher, store);
    watcher.stop();
    expect(seen.dispatched).toBe(2);
    expect(seen.watchers).toEqual([1, 0]);
    expect(seen.sizes[seen.sizes.length - 1]).toMatchObject({ objects: 3, events: 2 });
    expect(cacher.size()).toMatchObject({ objects: 3, events: 2, watchers: 0 });
  });
});

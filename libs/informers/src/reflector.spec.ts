import { isExpiredOrGone } from '@svc/machinery';
import type { Delta } from './delta';
import { FakeConnectionError, FakeResourceServer, type FakeResourceServerOptions } from './testing/fake-resource-server';
import { Indexer } from './indexer';
import type { ListerWatcher } from './lister-watcher';
import { silentInformerLogger } from './logger';
import { ManualQueueClock } from './workqueue';
import { keepObjects, Reflector, WatchClosedEarlyError, WatchStalledError, type ReflectorOptions } from './reflector';
import { eventually, settle } from './testing/eventually';
import { pod, versions, type TestPod } from './testing/objects';

const FAST: ReflectorOptions = {
  logger: silentInformerLogger,
  backoff: { initialMs: 4, maxMs: 20 },
  watchLivenessTimeoutMs: 0,
  pageSize: 2,
};

function setup(options: ReflectorOptions = {}, serverOptions: FakeResourceServerOptions = {}) {
  const server = new FakeResourceServer<TestPod>(serverOptions);
  const store = new Indexer<TestPod>();
  const deltas: Delta<TestPod>[] = [];
  let synced = 0;
  const make = (lw: ListerWatcher<TestPod> = server.listerWatcher()) =>
    new Reflector<TestPod>(lw, store, { onDelta: (d) => deltas.push(d), onSynced: () => synced++ }, { ...FAST, ...options });
  return { server, store, deltas, make, synced: () => synced };
}

const reflectors: Reflector<TestPod>[] = [];
function started(r: Reflector<TestPod>): Reflector<TestPod> {
  reflectors.push(r);
  r.start();
  return r;
}
afterEach(async () => {
  await Promise.all(reflectors.splice(0).map((r) => r.stop()));
});

/** The cache holds exactly the server's objects, each at the server's version. */
async function cacheEqualsServer(store: Indexer<TestPod>, server: FakeResourceServer<TestPod>): Promise<void> {
  await eventually(() => expect(versions(store.list())).toEqual(versions(server.items())));
}

function summary(deltas: Delta<TestPod>[]): string[] {
  return deltas.map((d) => {
    const name = d.object.metadata.name;
    if (d.type === 'deleted') return `deleted ${name}${d.finalStateUnknown ? ' (final state unknown)' : ''}`;
    return `${d.type} ${name}`;
  });
}

describe('Reflector', () => {
  it('lists in pages, then watches from the list version with bookmarks and a 5 to 10 minute server timeout', async () => {
    const { server, store, deltas, make, synced } = setup();
    for (const name of ['a', 'b', 'c', 'd', 'e']) server.create(pod('ns', name));
    const listedAt = server.resourceVersion;
    const r = started(make());
    await eventually(() => expect(r.hasSynced()).toBe(true));
    expect(synced()).toBe(1);
    expect(store.size).toBe(5);
    expect(store.resourceVersion).toBe(listedAt);
    expect(summary(deltas)).toEqual(['added a', 'added b', 'added c', 'added d', 'added e']);
    expect(deltas.every((d) => d.type === 'added' && d.isInInitialList)).toBe(true);

    expect(server.listRequests.map((o) => [o.limit, o.continue, o.resourceVersion])).toEqual([
      [2, undefined, undefined],
      [2, '1:2', undefined],
      [2, '1:4', undefined],
    ]);
    await eventually(() => expect(server.watchRequests).toHaveLength(1));
    const watch = server.watchRequests[0];
    expect(watch.resourceVersion).toBe(listedAt);
    expect(watch.allowWatchBookmarks).toBe(true);
    expect(watch.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(watch.timeoutSeconds).toBeLessThan(600);
    await eventually(() => expect(r.healthy()).toBe(true));
  });

  it('applies watch events to the store and reports adds, updates and deletes', async () => {
    const { server, store, deltas, make } = setup();
    server.create(pod('ns', 'a'));
    const r = started(make());
    await eventually(() => expect(server.openWatches).toBe(1));
    deltas.length = 0;

    server.create(pod('ns', 'b'));
    server.update(pod('ns', 'a', { spec: { image: 'v2' } }));
    server.delete('ns/b');
    await cacheEqualsServer(store, server);
    expect(summary(deltas)).toEqual(['added b', 'updated a', 'deleted b']);
    const update = deltas[1] as Extract<Delta<TestPod>, { type: 'updated' }>;
    expect(update.oldObject.spec).toBeUndefined();
    expect(update.object.spec?.image).toBe('v2');
    expect(r.lastSyncResourceVersion()).toBe(server.resourceVersion);
    expect(store.resourceVersion).toBe(server.resourceVersion);
  });

  it('caches objects without managedFields by default, and as sent with keepObjects', async () => {
    const managed = (name: string) => pod('ns', name, { metadata: { name, managedFields: [{ manager: 'm', operation: 'Update' }] } as TestPod['metadata'] });
    const hasManagedFields = (o: TestPod | undefined) => (o?.metadata as { managedFields?: unknown } | undefined)?.managedFields !== undefined;
    for (const [options, kept] of [
      [{}, false],
      [{ transform: keepObjects }, true],
    ] as const) {
      const { server, store, make } = setup(options);
      server.create(managed('listed'));
      const r = started(make());
      await eventually(() => expect(server.openWatches).toBe(1));
      server.create(managed('watched'));
      await cacheEqualsServer(store, server);
      expect([hasManagedFields(store.getByKey('ns/listed')), hasManagedFields(store.getByKey('ns/watched'))]).toEqual([kept, kept]);
      expect(server.items().every(hasManagedFields)).toBe(true);
      await r.stop();
    }
  });

  it('moves its version forward on bookmarks', async () => {
    const { server, store, make } = setup();
    // Changes in other namespaces never reach a namespace-filtered watch; a bookmark says how far it got.
    const r = started(make(server.listerWatcher({ namespace: 'mine' })));
    await eventually(() => expect(server.openWatches).toBe(1));
    server.create(pod('theirs', 'x'));
    server.create(pod('theirs', 'y'));
    const waiting = store.waitForResourceVersion(server.resourceVersion, 5_000);
    server.bookmark();
    await expect(waiting).resolves.toBe(true);
    expect(r.lastSyncResourceVersion()).toBe('2');
    expect(store.size).toBe(0);
  });

  it('watches again from the last version when the server ends the watch, without listing', async () => {
    const clock = new ManualQueueClock();
    const { server, store, make } = setup({ clock });
    server.create(pod('ns', 'a'));
    const r = started(make());
    await eventually(() => expect(server.openWatches).toBe(1));
    server.update(pod('ns', 'a', { spec: { image: 'v2' } }));
    await cacheEqualsServer(store, server);
    clock.advance(2_000); // a watch that lived over a second ended normally, not early
    server.bookmark();
    await eventually(() => expect(r.lastSyncResourceVersion()).toBe('2'));
    server.endWatches();
    await eventually(() => expect(server.watchRequests).toHaveLength(2));
    expect(server.watchRequests[1].resourceVersion).toBe('2');
    expect(server.listRequests).toHaveLength(1);
    expect(r.healthy()).toBe(true);
  });

  it('survives the API server going away and coming back: re-watches from the last version and ends equal to the server', async () => {
    const { server, store, deltas, make } = setup();
    for (const name of ['a', 'b', 'c']) server.create(pod('ns', name));
    const r = started(make());
    await eventually(() => expect(server.openWatches).toBe(1));
    deltas.length = 0;

    server.setDown(true);
    await eventually(() => expect(r.healthy()).toBe(false));
    expect(r.lastError).toBeInstanceOf(FakeConnectionError);
    // Changes while the server is "restarting" (its store keeps them, history included).
    server.update(pod('ns', 'a', { spec: { image: 'v2' } }));
    server.delete('ns/b');
    server.create(pod('ns', 'd'));
    await eventually(() => expect(server.watchRequests.length).toBeGreaterThanOrEqual(3)); // retried while down
    server.setDown(false);

    await cacheEqualsServer(store, server);
    await eventually(() => expect(r.healthy()).toBe(true));
    expect(server.listRequests.filter((l) => l.continue === undefined)).toHaveLength(1);
    expect(new Set(server.watchRequests.slice(1).map((w) => w.resourceVersion))).toEqual(new Set(['3']));
    expect(summary(deltas)).toEqual(['updated a', 'deleted b', 'added d']);
  });

  it.each(['event', 'status'] as const)(
    'relists on 410 (sent as %s) and reports what changed while it was away, deletions with their last known state',
    async (goneAs) => {
      const { server, store, deltas, make } = setup({}, { goneAs });
      for (const name of ['a', 'b', 'c']) server.create(pod('ns', name));
      const r = started(make());
      await eventually(() => expect(server.openWatches).toBe(1));
      deltas.length = 0;

      server.setDown(true);
      server.update(pod('ns', 'a', { spec: { image: 'v2' } }));
      server.delete('ns/b');
      server.create(pod('ns', 'd'));
      server.compact(); // the reflector's last version is gone
      server.setDown(false);

      await cacheEqualsServer(store, server);
      await eventually(() => expect(r.healthy()).toBe(true));
      expect(server.listRequests.filter((l) => l.continue === undefined)).toHaveLength(2);
      expect(isExpiredOrGone(r.lastError)).toBe(true);
      expect(summary(deltas).sort()).toEqual(['added d', 'deleted b (final state unknown)', 'updated a']);
      const deleted = deltas.find((d) => d.type === 'deleted');
      expect(deleted?.object.metadata.resourceVersion).toBe('2'); // the last state the cache knew
      expect(store.resourceVersion).toBe(server.resourceVersion);
      // Unchanged objects make no noise on a relist.
      expect(deltas.some((d) => d.object.metadata.name === 'c')).toBe(false);
    },
  );

  it('relists right after a 410, whatever backoff the outage before it built up', async () => {
    const { server, store, make } = setup({ backoff: { initialMs: 20, maxMs: 2_000 } });
    for (const name of ['a', 'b']) server.create(pod('ns', name));
    const lw = server.listerWatcher();
    const calls: Array<{ call: 'list' | 'watch'; at: number }> = [];
    const timed: ListerWatcher<TestPod> = {
      list: (options) => {
        calls.push({ call: 'list', at: performance.now() });
        return lw.list(options);
      },
      watch: (options) => {
        calls.push({ call: 'watch', at: performance.now() });
        return lw.watch(options);
      },
    };
    started(make(timed));
    await eventually(() => expect(server.openWatches).toBe(1));

    server.setDown(true);
    // Long enough for the delays to grow past a second.
    await eventually(() => expect(calls.filter((c) => c.call === 'watch').length).toBeGreaterThanOrEqual(8), 10_000);
    server.update(pod('ns', 'a', { spec: { image: 'v2' } }));
    server.compact();
    server.setDown(false);

    await cacheEqualsServer(store, server);
    const relist = calls.findLastIndex((c) => c.call === 'list');
    const gone = calls[relist - 1];
    expect(gone.call).toBe('watch');
    expect(calls[relist].at - gone.at).toBeLessThan(500);
  });

  it('lists again in one request when a continue token expires mid-list', async () => {
    const { server, store } = setup();
    for (const name of ['a', 'b', 'c', 'd', 'e']) server.create(pod('ns', name));
    const lw = server.listerWatcher();
    let pages = 0;
    const expiring: ListerWatcher<TestPod> = {
      list: async (options) => {
        if (options.continue !== undefined && ++pages === 1) server.expireContinueTokens();
        return lw.list(options);
      },
      watch: (options) => lw.watch(options),
    };
    const r = started(new Reflector(expiring, store, undefined, FAST));
    await eventually(() => expect(r.hasSynced()).toBe(true));
    expect(store.size).toBe(5);
    expect(server.listRequests.at(-1)).toEqual({ signal: undefined });
  });

  it('retries a failing list with backoff until it succeeds', async () => {
    const { server, store, make } = setup();
    server.create(pod('ns', 'a'));
    server.setDown(true);
    const r = started(make());
    await eventually(() => expect(server.listRequests.length).toBeGreaterThanOrEqual(3));
    expect(r.hasSynced()).toBe(false);
    expect(r.healthy()).toBe(false);
    server.setDown(false);
    await eventually(() => expect(r.healthy()).toBe(true));
    expect(store.size).toBe(1);
  });

  it('treats a watch that goes silent as dead: reports unhealthy and relists within the liveness timeout', async () => {
    const { server, store, make } = setup({ watchLivenessTimeoutMs: 250 });
    server.create(pod('ns', 'a'));
    const lw = server.listerWatcher();
    let release: () => void = () => undefined;
    let holdLists = false;
    let lists = 0;
    const r = started(
      make({
        // Holds the relist so the test can see the unhealthy state in between.
        list: async (o) => {
          lists++;
          if (holdLists) await new Promise<void>((resolve) => (release = resolve));
          return lw.list(o);
        },
        watch: (o) => lw.watch(o),
      }),
    );
    await eventually(() => expect(server.openWatches).toBe(1));
    // Keep the first watch alive past the threshold with bookmarks: liveness counts silence, not age.
    for (let i = 0; i < 8; i++) {
      await settle(50);
      server.bookmark();
    }
    expect(lists).toBe(1);
    expect(r.healthy()).toBe(true);

    holdLists = true;
    server.stallWatches(); // half-open: nothing arrives, stop() is ignored
    const stalledAt = Date.now();
    server.create(pod('ns', 'b'));
    await eventually(() => expect(lists).toBe(2), 1_000, 2);
    expect(Date.now() - stalledAt).toBeLessThan(1_000);
    expect(r.healthy()).toBe(false);
    expect(r.lastError).toBeInstanceOf(WatchStalledError);
    release();
    await cacheEqualsServer(store, server);
    await eventually(() => expect(r.healthy()).toBe(true));
  });

  it('applies the liveness timeout to a watch request that never answers', async () => {
    const { server, store, make } = setup({ watchLivenessTimeoutMs: 100 });
    const lw = server.listerWatcher();
    let hang = true;
    const r = started(
      make({
        list: (o) => lw.list(o),
        watch: (o) => (hang ? new Promise(() => undefined) : lw.watch(o)),
      }),
    );
    await eventually(() => expect(server.listRequests.length).toBeGreaterThanOrEqual(2));
    expect(r.lastError).toBeInstanceOf(WatchStalledError);
    hang = false;
    server.create(pod('ns', 'a'));
    await cacheEqualsServer(store, server);
  });

  it('reports unhealthy when reopening a watch takes longer than the reconnect grace, before any attempt failed', async () => {
    const { server, make } = setup({ reconnectGraceMs: 80 });
    const lw = server.listerWatcher();
    let release: () => void = () => undefined;
    let hold = false;
    const r = started(
      make({
        list: (o) => lw.list(o),
        // Like a client that quietly retries a reset connection before giving up.
        watch: async (o) => {
          if (hold) await new Promise<void>((resolve) => (release = resolve));
          return lw.watch(o);
        },
      }),
    );
    await eventually(() => expect(server.openWatches).toBe(1));
    expect(r.healthy()).toBe(true);
    hold = true;
    server.bookmark(); // a watch that brought something and then ended is a normal end
    await eventually(() => expect(r.lastSyncResourceVersion()).toBe(server.resourceVersion));
    server.endWatches();
    await settle(20);
    expect(r.healthy()).toBe(true); // a normal re-watch is quick: no flapping
    await eventually(() => expect(r.healthy()).toBe(false), 1_000, 5);
    expect(r.lastError).toBeUndefined();
    release();
    await eventually(() => expect(r.healthy()).toBe(true));
  });

  it('backs off when the server closes new watches at once without sending anything', async () => {
    const { server, make } = setup();
    const lw = server.listerWatcher();
    const r = started(
      make({
        list: (o) => lw.list(o),
        watch: async (o) => {
          const s = await lw.watch(o);
          s.stop();
          return s;
        },
      }),
    );
    await eventually(() => expect(r.lastError).toBeInstanceOf(WatchClosedEarlyError));
    const before = server.watchRequests.length;
    await settle(100);
    // Backoff capped at 20 ms here: a few dozen attempts at most, not a hot loop.
    expect(server.watchRequests.length - before).toBeLessThan(30);
  });

  it('skips replayed events older than what it holds', async () => {
    const { server, store, make } = setup();
    const created = server.create(pod('ns', 'a'));
    const lw = server.listerWatcher();
    let replayed = false;
    const r = started(
      make({
        list: (o) => lw.list(o),
        watch: async (o) => {
          const s = await lw.watch(o);
          if (!replayed) {
            replayed = true;
            const inner = s[Symbol.asyncIterator]();
            let sentOld = false;
            return {
              stop: () => s.stop(),
              [Symbol.asyncIterator]: () => ({
                next: async () => {
                  if (!sentOld) {
                    sentOld = true;
                    return { value: { type: 'MODIFIED' as const, object: { ...created, spec: { image: 'old' } } }, done: false };
                  }
                  return inner.next();
                },
              }),
            };
          }
          return s;
        },
      }),
    );
    await eventually(() => expect(r.hasSynced()).toBe(true));
    server.update(pod('ns', 'a', { spec: { image: 'new' } }));
    await cacheEqualsServer(store, server);
    expect(store.getByKey('ns/a')?.spec?.image).toBe('new');
  });

  it('stops promptly even with a stalled watch and a pending backoff', async () => {
    const { server, make } = setup({ watchLivenessTimeoutMs: 60_000, backoff: { initialMs: 60_000 } });
    const r = started(make());
    await eventually(() => expect(server.openWatches).toBe(1));
    server.stallWatches();
    const t0 = Date.now();
    await r.stop();
    expect(Date.now() - t0).toBeLessThan(500);
    expect(r.healthy()).toBe(false);

    const down = setup({ backoff: { initialMs: 60_000 } });
    down.server.setDown(true);
    const r2 = started(down.make());
    await eventually(() => expect(down.server.listRequests).toHaveLength(1));
    const t1 = Date.now();
    await r2.stop();
    expect(Date.now() - t1).toBeLessThan(500);
  });
});

import type { ConfigMap, List, Pod, Status } from '@svc/api';
import { ApiClient, type WatchEventOf, type WatchStream } from './support/api-client';
import {
  MERGE_PATCH,
  compareRv,
  configMap,
  create,
  createNamespace,
  eventually,
  expectFailure,
  expectStatus,
  metricSamples,
  paths,
  pod,
  rvOf,
} from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';

// Watches (the watch row of the resourceVersion tables, bookmarks, timeouts, selectors), health and
// metrics, against the real svc-apiserver process.

type Event = WatchEventOf<ConfigMap>;

let server: ApiServerProcess;
let client: ApiClient;

beforeAll(async () => {
  // Object counts are polled; a short period makes them visible within the test.
  server = await startApiServerProcess({ args: ['--store-count-metric-poll-period=1s'] });
  client = new ApiClient(server.url, server.ca);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

const summary = (events: Event[]) => events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`);
const nonBookmarks = (events: Event[]) => events.filter((e) => e.type !== 'BOOKMARK');

async function openWatch(path: string, query: Record<string, string | number | undefined> = {}): Promise<WatchStream<ConfigMap>> {
  const stream = await client.watch<ConfigMap>(path, query);
  if (stream.status !== 200) throw new Error(`watch answered ${stream.status}: ${stream.raw}`);
  return stream;
}

/** Waits for `count` non-bookmark events and returns them. */
async function changes(stream: WatchStream<ConfigMap>, count: number, timeoutMs = 10_000): Promise<Event[]> {
  const events = await stream.waitFor((all) => nonBookmarks(all).length >= count, timeoutMs);
  return nonBookmarks(events);
}

/** The state a client builds from the events: name -> object. */
function replay(events: Event[]): Map<string, ConfigMap> {
  const state = new Map<string, ConfigMap>();
  for (const e of events) {
    const name = e.object.metadata?.name ?? '';
    if (e.type === 'ADDED' || e.type === 'MODIFIED') state.set(name, e.object);
    if (e.type === 'DELETED') state.delete(name);
  }
  return state;
}

describe('watch', () => {
  it('streams chunked JSON events with status 200', async () => {
    const ns = 'watch-shape';
    await createNamespace(client, ns);
    const stream = await openWatch(paths.configMaps(ns));
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toContain('application/json');
      expect(stream.headers['transfer-encoding']).toBe('chunked');
      await create(client, paths.configMaps(ns), configMap('one', { k: 'v' }));
      const [added] = await changes(stream, 1);
      expect(added).toMatchObject({
        type: 'ADDED',
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: ns }, data: { k: 'v' } },
      });
      expect(Object.keys(added).sort()).toEqual(['object', 'type']);
    } finally {
      stream.close();
    }
  });

  it('resourceVersion unset: Get State and Start at Most Recent (synthetic ADDED for every object first, then changes)', async () => {
    const ns = 'watch-unset';
    await createNamespace(client, ns);
    await create(client, paths.configMaps(ns), configMap('a', { v: '1' }));
    await create(client, paths.configMaps(ns), configMap('b', { v: '1' }));
    expectStatus(await client.patch(paths.configMap(ns, 'a'), MERGE_PATCH, { data: { v: '2' } }), 200);

    const stream = await openWatch(paths.configMaps(ns));
    try {
      const initial = await changes(stream, 2);
      expect(initial.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
      expect(initial.map((e) => e.object.metadata?.name).sort()).toEqual(['a', 'b']);
      // The most recent state: a's update is already in its ADDED event.
      expect(initial.find((e) => e.object.metadata?.name === 'a')?.object.data).toEqual({ v: '2' });

      await create(client, paths.configMaps(ns), configMap('c'));
      expectStatus(await client.patch(paths.configMap(ns, 'b'), MERGE_PATCH, { data: { v: '2' } }), 200);
      expectStatus(await client.delete(paths.configMap(ns, 'a')), 200);
      const all = await changes(stream, 5);
      expect(summary(all.slice(2))).toEqual(['ADDED c', 'MODIFIED b', 'DELETED a']);
      const deleted = all[4];
      expect(deleted.object).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'a' }, data: { v: '2' } });
      // Every later change carries a newer resourceVersion than the one before.
      for (let i = 3; i < all.length; i++) expect(compareRv(rvOf(all[i].object), rvOf(all[i - 1].object))).toBeGreaterThan(0);
    } finally {
      stream.close();
    }
  });

  it('resourceVersion=0: Get State and Start at Any (synthetic ADDED first; the replayed state converges to the store)', async () => {
    const ns = 'watch-zero';
    await createNamespace(client, ns);
    await create(client, paths.configMaps(ns), configMap('a'));
    await create(client, paths.configMaps(ns), configMap('b'));

    const stream = await openWatch(paths.configMaps(ns), { resourceVersion: '0' });
    try {
      const first = await changes(stream, 1);
      expect(first[0].type).toBe('ADDED');
      await create(client, paths.configMaps(ns), configMap('z-last'));
      const events = await stream.waitFor((all) => all.some((e) => e.object.metadata?.name === 'z-last'));
      const initial = nonBookmarks(events).filter((e) => e.object.metadata?.name !== 'z-last');
      expect(initial.every((e) => e.type === 'ADDED')).toBe(true);
      const list = await client.get<List<ConfigMap>>(paths.configMaps(ns));
      expect([...replay(nonBookmarks(events)).keys()].sort()).toEqual(list.body.items.map((i) => i.metadata?.name).sort());
    } finally {
      stream.close();
    }
  });

  it('resourceVersion=N: Start at Exact, exactly the changes after N, in order, no synthetic events', async () => {
    const ns = 'watch-exact';
    await createNamespace(client, ns);
    const x1 = await create<ConfigMap>(client, paths.configMaps(ns), configMap('x1', { v: '1' }));
    const x2 = await create<ConfigMap>(client, paths.configMaps(ns), configMap('x2'));
    const x1b = (await client.patch<ConfigMap>(paths.configMap(ns, 'x1'), MERGE_PATCH, { data: { v: '2' } })).body;
    expectStatus(await client.delete(paths.configMap(ns, 'x2')), 200);

    const stream = await openWatch(paths.configMaps(ns), { resourceVersion: rvOf(x1) });
    try {
      const replayed = await changes(stream, 3);
      expect(summary(replayed)).toEqual(['ADDED x2', 'MODIFIED x1', 'DELETED x2']);
      expect(rvOf(replayed[0].object)).toBe(rvOf(x2));
      expect(rvOf(replayed[1].object)).toBe(rvOf(x1b));
      expect(replayed[1].object.data).toEqual({ v: '2' });
      expect(compareRv(rvOf(replayed[2].object), rvOf(x1b))).toBeGreaterThan(0);

      expectStatus(await client.patch(paths.configMap(ns, 'x1'), MERGE_PATCH, { data: { v: '3' } }), 200);
      const live = await changes(stream, 4);
      expect(summary(live)).toEqual(['ADDED x2', 'MODIFIED x1', 'DELETED x2', 'MODIFIED x1']);
      expect(live[3].object.data).toEqual({ v: '3' });
    } finally {
      stream.close();
    }
  });

  it("a watch from a list's resourceVersion misses nothing and repeats nothing", async () => {
    const ns = 'watch-list-then-watch';
    await createNamespace(client, ns);
    for (const name of ['l1', 'l2']) await create(client, paths.configMaps(ns), configMap(name));
    const list = await client.get<List<ConfigMap>>(paths.configMaps(ns));
    await create(client, paths.configMaps(ns), configMap('l3'));
    expectStatus(await client.delete(paths.configMap(ns, 'l1')), 200);
    const stream = await openWatch(paths.configMaps(ns), { resourceVersion: rvOf(list.body) });
    try {
      expect(summary(await changes(stream, 2))).toEqual(['ADDED l3', 'DELETED l1']);
      await create(client, paths.configMaps(ns), configMap('l4'));
      expect(summary(await changes(stream, 3))).toEqual(['ADDED l3', 'DELETED l1', 'ADDED l4']);
    } finally {
      stream.close();
    }
  });

  it('allowWatchBookmarks=true gets BOOKMARK events carrying only a resourceVersion; without it none; timeoutSeconds ends both streams', async () => {
    const ns = 'watch-bookmarks';
    await createNamespace(client, ns);
    const cm = await create<ConfigMap>(client, paths.configMaps(ns), configMap('only'));
    const timeoutSeconds = 4;
    const started = Date.now();
    const [withBookmarks, without] = await Promise.all([
      openWatch(paths.configMaps(ns), { allowWatchBookmarks: 'true', timeoutSeconds }),
      openWatch(paths.configMaps(ns), { timeoutSeconds }),
    ]);
    try {
      const [endedWith, endedWithout] = await Promise.all([withBookmarks.waitForEnd(15_000), without.waitForEnd(15_000)]);
      const elapsed = Date.now() - started;
      expect(endedWith).toBe(true);
      expect(endedWithout).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(timeoutSeconds * 1000 - 500);
      expect(elapsed).toBeLessThan(timeoutSeconds * 1000 + 5_000);

      const bookmarks = withBookmarks.events.filter((e) => e.type === 'BOOKMARK');
      expect(bookmarks.length).toBeGreaterThanOrEqual(1);
      for (const bookmark of bookmarks) {
        const object = bookmark.object as unknown as Record<string, unknown> & { metadata: Record<string, unknown> };
        expect(object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
        expect(Object.keys(object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
        expect(rvOf(bookmark.object)).toMatch(/^\d+$/);
        expect(compareRv(rvOf(bookmark.object), rvOf(cm))).toBeGreaterThanOrEqual(0);
        // Nothing else of an object: no name, no uid (a null creationTimestamp is how Kubernetes prints an empty time).
        const present = Object.entries(object.metadata).filter(([k, v]) => k !== 'resourceVersion' && v !== null);
        expect(present).toEqual([]);
      }
      expect(summary(nonBookmarks(withBookmarks.events))).toEqual(['ADDED only']);
      expect(without.events.map((e) => e.type)).toEqual(['ADDED']);
    } finally {
      withBookmarks.close();
      without.close();
    }
  }, 30_000);

  it('timeoutSeconds=1 ends an idle watch after about a second', async () => {
    const started = Date.now();
    const stream = await openWatch(paths.configMaps('default'), { timeoutSeconds: 1, resourceVersion: '0' });
    try {
      expect(await stream.waitForEnd(10_000)).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(Date.now() - started).toBeLessThan(6_000);
    } finally {
      stream.close();
    }
  });

  it('labelSelector: matching objects only; an object that stops matching is DELETED for the watcher, and ADDED when it matches again', async () => {
    const ns = 'watch-labels';
    await createNamespace(client, ns);
    await create(client, paths.configMaps(ns), configMap('web-1', {}, { tier: 'web' }));
    await create(client, paths.configMaps(ns), configMap('db-1', {}, { tier: 'db' }));
    const stream = await openWatch(paths.configMaps(ns), { labelSelector: 'tier=web' });
    try {
      expect(summary(await changes(stream, 1))).toEqual(['ADDED web-1']);
      await create(client, paths.configMaps(ns), configMap('db-2', {}, { tier: 'db' }));
      await create(client, paths.configMaps(ns), configMap('web-2', {}, { tier: 'web' }));
      expectStatus(await client.patch(paths.configMap(ns, 'web-1'), MERGE_PATCH, { metadata: { labels: { tier: 'db' } } }), 200);
      expectStatus(await client.patch(paths.configMap(ns, 'db-1'), MERGE_PATCH, { metadata: { labels: { tier: 'web' } } }), 200);
      expectStatus(await client.patch(paths.configMap(ns, 'web-2'), MERGE_PATCH, { data: { k: 'v' } }), 200);
      await create(client, paths.configMaps(ns), configMap('web-sentinel', {}, { tier: 'web' }));
      const events = await changes(stream, 6);
      expect(summary(events)).toEqual(['ADDED web-1', 'ADDED web-2', 'DELETED web-1', 'ADDED db-1', 'MODIFIED web-2', 'ADDED web-sentinel']);
    } finally {
      stream.close();
    }
  });

  it('fieldSelector metadata.name watches one object', async () => {
    const ns = 'watch-fields';
    await createNamespace(client, ns);
    await create(client, paths.configMaps(ns), configMap('other'));
    await create(client, paths.configMaps(ns), configMap('target'));
    const stream = await openWatch(paths.configMaps(ns), { fieldSelector: 'metadata.name=target' });
    try {
      expect(summary(await changes(stream, 1))).toEqual(['ADDED target']);
      expectStatus(await client.patch(paths.configMap(ns, 'other'), MERGE_PATCH, { data: { a: '1' } }), 200);
      expectStatus(await client.patch(paths.configMap(ns, 'target'), MERGE_PATCH, { data: { a: '1' } }), 200);
      expectStatus(await client.delete(paths.configMap(ns, 'other')), 200);
      expectStatus(await client.delete(paths.configMap(ns, 'target')), 200);
      expect(summary(await changes(stream, 3))).toEqual(['ADDED target', 'MODIFIED target', 'DELETED target']);
    } finally {
      stream.close();
    }
  });

  it('fieldSelector spec.nodeName watches the pods of one node', async () => {
    const ns = 'watch-node';
    await createNamespace(client, ns);
    const stream = await client.watch<Pod>(paths.pods(ns), { fieldSelector: 'spec.nodeName=node-a' });
    try {
      expect(stream.status).toBe(200);
      await create(client, paths.pods(ns), pod('elsewhere', { nodeName: 'node-b' }));
      await create(client, paths.pods(ns), pod('unscheduled'));
      await create(client, paths.pods(ns), pod('here', { nodeName: 'node-a' }));
      const events = await stream.waitFor((all) => all.some((e) => e.type !== 'BOOKMARK'));
      expect(events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED here']);
    } finally {
      stream.close();
    }
  });

  it('answers 400 for an unsupported field selector and 422 for resourceVersionMatch on a watch, before streaming', async () => {
    const bad = await client.watch<Status>(paths.pods('default'), { fieldSelector: 'spec.bogus=x' });
    try {
      expect(bad.status).toBe(400);
      await bad.waitForEnd(5_000);
      expect(JSON.parse(bad.raw)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    } finally {
      bad.close();
    }
    const match = await client.watch<Status>(paths.configMaps('default'), { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' });
    try {
      expect(match.status).toBe(422);
      await match.waitForEnd(5_000);
      expect(JSON.parse(match.raw)).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    } finally {
      match.close();
    }
  });

  it('a namespaced watch sees its namespace only; a watch of all namespaces sees both', async () => {
    await createNamespace(client, 'watch-scope-a');
    await createNamespace(client, 'watch-scope-b');
    const all = await openWatch('/api/v1/configmaps', { resourceVersion: rvOf((await client.get<List<ConfigMap>>('/api/v1/configmaps')).body) });
    const onlyA = await openWatch(paths.configMaps('watch-scope-a'), { resourceVersion: '0' });
    try {
      await create(client, paths.configMaps('watch-scope-b'), configMap('in-b'));
      await create(client, paths.configMaps('watch-scope-a'), configMap('in-a'));
      expect((await changes(all, 2)).map((e) => `${e.object.metadata?.namespace}/${e.object.metadata?.name}`)).toEqual([
        'watch-scope-b/in-b',
        'watch-scope-a/in-a',
      ]);
      expect(summary(await changes(onlyA, 1))).toEqual(['ADDED in-a']);
      expect(nonBookmarks(onlyA.events)).toHaveLength(1);
    } finally {
      all.close();
      onlyA.close();
    }
  });

  it('many watchers of one resource each get every event', async () => {
    const ns = 'watch-fanout';
    await createNamespace(client, ns);
    const start = rvOf((await client.get<List<ConfigMap>>(paths.configMaps(ns))).body);
    const streams = await Promise.all(Array.from({ length: 20 }, () => openWatch(paths.configMaps(ns), { resourceVersion: start })));
    try {
      for (let i = 0; i < 5; i++) await create(client, paths.configMaps(ns), configMap(`f${i}`));
      for (const stream of streams) expect(summary(await changes(stream, 5))).toEqual(['ADDED f0', 'ADDED f1', 'ADDED f2', 'ADDED f3', 'ADDED f4']);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

describe('health', () => {
  it('answers /livez, /healthz and /readyz with ok', async () => {
    for (const path of ['/livez', '/healthz', '/readyz']) {
      const res = await client.get(path);
      expect(res.status).toBe(200);
      expect(res.text).toBe('ok');
    }
  });

  it('lists the store and the watch cache among the verbose readyz checks', async () => {
    const res = await client.get('/readyz', { verbose: 'true' });
    expect(res.status).toBe(200);
    const lines = res.text.trim().split('\n');
    expect(lines).toContain('[+]ping ok');
    expect(lines).toContain('[+]store ok');
    expect(lines.some((l) => /^\[\+\]\S*(watch-?cache|cacher)\S* ok$/i.test(l))).toBe(true);
    expect(lines.some((l) => /^\[\+\]poststarthook\/\S+ ok$/.test(l))).toBe(true);
    expect(lines[lines.length - 1]).toBe('readyz check passed');
    const livez = await client.get('/livez', { verbose: 'true' });
    expect(livez.text).toContain('[+]ping ok');
    expect(livez.text.trim().endsWith('livez check passed')).toBe(true);
    const store = await client.get('/readyz/store');
    expect(store).toMatchObject({ status: 200, text: 'ok' });
  });
});

describe('metrics', () => {
  const metrics = async () => {
    const res = await client.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    return res.text;
  };

  it('counts requests by verb, group, version, resource and code', async () => {
    const ns = 'metrics-requests';
    await createNamespace(client, ns);
    await create(client, paths.configMaps(ns), configMap('counted'));
    expectStatus(await client.get(paths.configMaps(ns)), 200);
    expectStatus(await client.get(paths.configMap(ns, 'absent')), 404);
    expectStatus(await client.get(paths.deployments(ns)), 200);
    const text = await metrics();
    const requests = metricSamples(text, 'apiserver_request_total');
    const find = (labels: Record<string, string>) => requests.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    expect(find({ verb: 'POST', group: '', version: 'v1', resource: 'configmaps', code: '201' })?.value).toBeGreaterThanOrEqual(1);
    expect(find({ verb: 'LIST', group: '', version: 'v1', resource: 'configmaps', code: '200' })?.value).toBeGreaterThanOrEqual(1);
    expect(find({ verb: 'GET', group: '', version: 'v1', resource: 'configmaps', code: '404' })?.value).toBeGreaterThanOrEqual(1);
    expect(find({ verb: 'LIST', group: 'apps', version: 'v1', resource: 'deployments', code: '200' })?.value).toBeGreaterThanOrEqual(1);
    expect(metricSamples(text, 'apiserver_request_duration_seconds_count').some((s) => s.labels.resource === 'configmaps' && s.labels.verb === 'POST')).toBe(
      true,
    );
  });

  it('shows open watches in apiserver_longrunning_requests while they last', async () => {
    const watching = (text: string) =>
      metricSamples(text, 'apiserver_longrunning_requests')
        .filter((s) => s.labels.verb === 'WATCH' && s.labels.resource === 'configmaps')
        .reduce((sum, s) => sum + s.value, 0);
    const streams = await Promise.all([openWatch(paths.configMaps('default')), openWatch(paths.configMaps('default'))]);
    try {
      expect(watching(await metrics())).toBeGreaterThanOrEqual(2);
    } finally {
      for (const stream of streams) stream.close();
    }
    await eventually(async () => expect(watching(await metrics())).toBe(0));
  });

  it('reports objects per resource in apiserver_storage_objects', async () => {
    const ns = 'metrics-objects';
    await createNamespace(client, ns);
    for (let i = 0; i < 3; i++) await create(client, paths.configMaps(ns), configMap(`o${i}`));
    const total = (await client.get<List<ConfigMap>>('/api/v1/configmaps')).body.items.length;
    await eventually(
      async () => {
        const sample = metricSamples(await metrics(), 'apiserver_storage_objects').find((s) => s.labels.resource === 'configmaps');
        expect(sample?.value).toBeGreaterThanOrEqual(total);
      },
      15_000,
      250,
    );
    const namespaces = metricSamples(await metrics(), 'apiserver_storage_objects').find((s) => s.labels.resource === 'namespaces');
    expect(namespaces?.value).toBeGreaterThanOrEqual(4);
  }, 30_000);
});

describe('errors', () => {
  it('answers a missing object and an unknown resource with 404 Status bodies', async () => {
    expectFailure(await client.get(paths.configMap('default', 'nothing-here')), 404, 'NotFound');
    expectFailure(await client.get('/api/v1/namespaces/default/nosuchresources'), 404, 'NotFound');
  });
});

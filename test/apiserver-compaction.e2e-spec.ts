import type { ConfigMap, List, Status } from '@svc/api';
import { ApiClient } from './support/api-client';
import { configMap, create, createNamespace, eventually, expectFailure, expectStatus, paths, rvOf } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';

// The 410 rows of the resourceVersion tables: versions older than the store keeps. The store compacts
// every 2 s here; configmaps bypass the watch cache so that their watches read the store's history,
// whose retention is what the compaction interval sets. A 1 s --min-request-timeout makes the
// server-side watch timeout observable too.

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'compaction';
let early: ConfigMap;
let token: string;

beforeAll(async () => {
  server = await startApiServerProcess({ args: ['--store-compaction-interval=2s', '--watch-cache-sizes=configmaps#0', '--min-request-timeout=1'] });
  client = new ApiClient(server.url, server.ca);
  await createNamespace(client, ns);
  early = await create<ConfigMap>(client, paths.configMaps(ns), configMap('e1', { v: '1' }));
  await create(client, paths.configMaps(ns), configMap('e2'));
  const page = await client.get<List<ConfigMap>>(paths.configMaps(ns), { limit: 1 });
  expectStatus(page, 200);
  token = page.body.metadata.continue ?? '';
  expect(token).not.toBe('');
  // Later writes move the store past the early versions, so that compaction can drop them.
  await create(client, paths.configMaps(ns), configMap('e3'));
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

/** Resolves once the store no longer serves the early version exactly (after two compaction ticks or so). */
async function earlyVersionCompacted(): Promise<void> {
  await eventually(
    async () => {
      const res = await client.get(paths.configMaps(ns), { resourceVersion: rvOf(early), resourceVersionMatch: 'Exact' });
      expect(res.status).toBe(410);
    },
    20_000,
    200,
  );
}

it('serves Exact at a retained version, and 410 Expired once that version is compacted', async () => {
  await earlyVersionCompacted();
  for (const query of [
    { resourceVersion: rvOf(early), resourceVersionMatch: 'Exact' },
    { resourceVersion: rvOf(early), resourceVersionMatch: 'Exact', limit: 1 },
    { resourceVersion: rvOf(early), limit: 1 }, // limit without match is Exact too
  ]) {
    expectFailure(await client.get(paths.configMaps(ns), query), 410, 'Expired');
  }
}, 30_000);

it('still serves Not older than and get at a compacted version, from newer data', async () => {
  await earlyVersionCompacted();
  const list = await client.get<List<ConfigMap>>(paths.configMaps(ns), { resourceVersion: rvOf(early) });
  expectStatus(list, 200);
  expect(list.body.items.map((i) => i.metadata?.name)).toEqual(['e1', 'e2', 'e3']);
  const notOlder = await client.get<List<ConfigMap>>(paths.configMaps(ns), { resourceVersion: rvOf(early), resourceVersionMatch: 'NotOlderThan' });
  expectStatus(notOlder, 200);
  const one = await client.get<ConfigMap>(paths.configMap(ns, 'e1'), { resourceVersion: rvOf(early) });
  expectStatus(one, 200);
  expect(one.body.data).toEqual({ v: '1' });
}, 30_000);

it('answers a continue token whose snapshot was compacted with 410 Expired and a token to go on inconsistently', async () => {
  await earlyVersionCompacted();
  const res = await client.get(paths.configMaps(ns), { limit: 1, continue: token });
  const status = expectFailure(res, 410, 'Expired') as Status & { metadata?: { continue?: string } };
  expect(status.message).toContain('continue');
  const next = status.metadata?.continue;
  expect(next).toBeTruthy();
  const rest = await client.get<List<ConfigMap>>(paths.configMaps(ns), { limit: 5, continue: next });
  expectStatus(rest, 200);
  expect(rest.body.items.map((i) => i.metadata?.name)).toEqual(['e2', 'e3']);
}, 30_000);

it('ends a watch from a compacted version with an ERROR event carrying a 410 Expired Status', async () => {
  await earlyVersionCompacted();
  const stream = await client.watch<Status>(paths.configMaps(ns), { resourceVersion: rvOf(early) });
  try {
    expect(stream.status).toBe(200);
    const events = await stream.waitForCount(1, 10_000);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' } });
    expect(await stream.waitForEnd(5_000)).toBe(true);
  } finally {
    stream.close();
  }
}, 30_000);

it('a watch from a current version still works after compaction', async () => {
  await earlyVersionCompacted();
  const list = await client.get<List<ConfigMap>>(paths.configMaps(ns));
  const stream = await client.watch<ConfigMap>(paths.configMaps(ns), { resourceVersion: rvOf(list.body) });
  try {
    expect(stream.status).toBe(200);
    await create(client, paths.configMaps(ns), configMap('after'));
    const events = await stream.waitForCount(1);
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED after']);
  } finally {
    stream.close();
  }
}, 30_000);

it('ends a watch without timeoutSeconds after a randomized time from --min-request-timeout to twice that', async () => {
  const started = Date.now();
  const streams = await Promise.all([
    client.watch(paths.configMaps(ns), { resourceVersion: '0' }),
    client.watch('/api/v1/namespaces', { resourceVersion: '0' }),
  ]);
  try {
    for (const stream of streams) {
      expect(stream.status).toBe(200);
      expect(await stream.waitForEnd(10_000)).toBe(true);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(2_000 + 2_000);
    }
  } finally {
    for (const stream of streams) stream.close();
  }
}, 30_000);

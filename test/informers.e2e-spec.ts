// An informer against the real svc-apiserver process: its cache must equal the server's state after
// writes, after the server restarts on the same data, and after a 410 (its last version compacted
// while it was cut off). The informer reaches the server through a TCP relay, so the test can cut it
// off while writing to the server directly.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap } from '@svc/api';
import { Client, loadClientConfig, type ResourceClient } from '@svc/client';
import { isExpiredOrGone } from '@svc/machinery';
import { listerWatcherFor, SharedInformer, silentInformerLogger } from '@svc/informers';
import { eventually } from './support/api-fixtures';
import { freeLoopbackPort } from './support/apiserver-process';
import { RestartableApiServer } from './support/restartable-apiserver';
import { TcpProxy } from './support/tcp-proxy';

const NS = 'informer-e2e';

/** `namespace/name` -> resourceVersion of each object, for comparing a cache with a server. */
function versions(items: readonly ConfigMap[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) out[`${item.metadata?.namespace}/${item.metadata?.name}`] = item.metadata?.resourceVersion ?? '';
  return out;
}
jest.setTimeout(90_000);

let dir: string;
let server: RestartableApiServer;
let proxy: TcpProxy;
let writer: Client;
let informerClient: Client;
let informer: SharedInformer<ConfigMap>;
const events: string[] = [];

const configMaps = (): ResourceClient<ConfigMap> => writer.configMaps.inNamespace(NS);
const cm = (name: string, data: Record<string, string> = {}): ConfigMap => ({ metadata: { name, namespace: NS }, data });

async function newWriter(): Promise<Client> {
  return new Client(await loadClientConfig({ svcconfig: server.svcconfig }));
}

/** The informer's cache holds exactly what the server lists, each object at the server's version. */
async function cacheEqualsServer(): Promise<void> {
  await eventually(
    async () => {
      const listed = await writer.configMaps.listAll();
      expect(versions(informer.lister().list())).toEqual(versions(listed.items));
    },
    30_000,
    100,
  );
}

beforeAll(async () => {
  RestartableApiServer.assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'svc-informer-e2e-'));
  server = new RestartableApiServer(dir, await freeLoopbackPort());
  await server.start();
  proxy = await TcpProxy.start(server.port);
  writer = await newWriter();
  await writer.namespaces.create({ metadata: { name: NS } });
  const config = await loadClientConfig({ svcconfig: server.svcconfig });
  informerClient = new Client({ ...config, server: `https://127.0.0.1:${proxy.port}` });
  informer = new SharedInformer<ConfigMap>(listerWatcherFor(informerClient.configMaps), {
    name: 'configmaps',
    logger: silentInformerLogger,
    backoff: { initialMs: 100, maxMs: 1_000 },
    reconnectGraceMs: 500,
  });
  informer.addEventHandler({
    onAdd: (o) => void events.push(`add ${o.metadata?.name}`),
    onUpdate: (a, b) => void events.push(`update ${b.metadata?.name}`),
    onDelete: (o, info) => void events.push(`delete ${o.metadata?.name}${info.finalStateUnknown ? ' (final state unknown)' : ''}`),
  });
  informer.start();
  await expect(informer.whenSynced(20_000)).resolves.toBe(true);
});

afterAll(async () => {
  await informer?.stop();
  informerClient?.close();
  writer?.close();
  await proxy?.close();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('follows creates, updates and deletes, and waits for its own writes', async () => {
  await cacheEqualsServer();
  const a = await configMaps().create(cm('a', { v: '1' }));
  await configMaps().create(cm('b'));
  await configMaps().create(cm('c'));
  const a2 = await configMaps().update({ ...a, data: { v: '2' } });
  await configMaps().delete('b');
  await expect(informer.waitForResourceVersion(`${NS}/a`, a2.metadata!.resourceVersion!, 10_000)).resolves.toBe(true);
  expect(informer.lister().namespace(NS).get('a')?.data).toEqual({ v: '2' });
  await cacheEqualsServer();
  await eventually(async () => expect(events).toEqual(expect.arrayContaining(['add a', 'add b', 'add c', 'update a', 'delete b'])));
  expect(informer.healthy()).toBe(true);
});

it('ends equal to the server after the server process restarts on the same data', async () => {
  const lists = informer.listCount;
  await server.stop();
  await eventually(async () => expect(informer.healthy()).toBe(false), 10_000, 20);
  await server.start();
  writer.close();
  writer = await newWriter();
  await configMaps().create(cm('after-restart'));
  const c = await configMaps().get('c');
  await configMaps().update({ ...c, data: { restarted: 'yes' } });
  await cacheEqualsServer();
  await eventually(async () => expect(informer.healthy()).toBe(true), 20_000, 50);
  expect(informer.lister().namespace(NS).get('c')?.data).toEqual({ restarted: 'yes' });
  // A restart costs at most one relist (if the new server cannot resume the old version).
  expect(informer.listCount - lists).toBeLessThanOrEqual(1);
});

it('relists after a 410 when its last version was compacted while it was cut off, reporting what it missed', async () => {
  await cacheEqualsServer();
  const lastSeen = informer.lastSyncResourceVersion();
  const lists = informer.listCount;
  proxy.block();
  await configMaps().create(cm('while-away'));
  await configMaps().delete('c');
  const a = await configMaps().get('a');
  await configMaps().update({ ...a, data: { v: 'missed' } });
  // Restarting empties the watch cache; compaction every second then drops the old history.
  await server.stop();
  await server.start(['--store-compaction-interval=1s']);
  writer.close();
  writer = await newWriter();
  await eventually(
    async () => {
      await configMaps().create(cm(`filler-${Date.now()}`));
      const probe = configMaps().watch({ resourceVersion: lastSeen });
      const outcome = await probe.then(
        async (w) => {
          try {
            for await (const event of w) return `event ${event.type}`;
            return 'ended';
          } catch (error) {
            return error;
          } finally {
            w.stop();
          }
        },
        (error: unknown) => error,
      );
      expect(isExpiredOrGone(outcome)).toBe(true);
    },
    30_000,
    500,
  );
  const marker = events.length;
  proxy.unblock();
  await cacheEqualsServer();
  expect(informer.listCount).toBeGreaterThan(lists);
  await eventually(async () => expect(events.slice(marker)).toEqual(expect.arrayContaining(['add while-away', 'delete c (final state unknown)', 'update a'])));
  expect(informer.lister().namespace(NS).get('a')?.data).toEqual({ v: 'missed' });
  await eventually(async () => expect(informer.healthy()).toBe(true), 20_000, 50);
});

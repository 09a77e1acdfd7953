import type { ChangeEvent, StorageWatchEvent } from '../storage';
import { describeStorageContract, key, prefix, withTimeout, type ContractTestObject } from '../testing/contract-suite';
import { etcdUnavailable, startEtcdCluster, type EtcdCluster } from '../testing/etcd-cluster';
import { EtcdClient } from './etcd-client';
import { ETCD, headerRevision, int64Number } from './etcd-protocol';
import { ALL_KEYS } from './etcd-watch-stream';
import { COMPACT_REVISION_KEY, Store3Storage } from './store3-storage';

// The store3 backend against a real three-member etcd cluster on loopback, started here (Debian's
// etcd-server, which `npm test` installs as root).
const unavailable = etcdUnavailable();
if (unavailable !== undefined) console.log(`store3 storage backend tests skipped: ${unavailable}`);

let cluster: EtcdCluster | undefined;
const clusterReady = async (): Promise<EtcdCluster> => (cluster ??= await startEtcdCluster({ members: 3 }));

afterAll(async () => {
  await cluster?.stop();
}, 30_000);

describeStorageContract(
  unavailable
    ? `store3 storage backend (etcd) honours the storage contract (skipped: ${unavailable})`
    : 'store3 storage backend (etcd) honours the storage contract',
  {
    async open(options) {
      const { endpoints } = await clusterReady();
      // A fresh store is an empty key space: what earlier tests wrote is deleted (history stays).
      const wipe = new EtcdClient({ endpoints });
      try {
        await wipe.call(ETCD.deleteRange, { key: ALL_KEYS, range_end: ALL_KEYS }, { write: true });
      } finally {
        wipe.close();
      }
      return Store3Storage.open({ servers: endpoints, compactionIntervalMs: 0, ...options });
    },
  },
  unavailable !== undefined,
);

(unavailable ? describe.skip : describe)('store3 compaction shared by several API servers', () => {
  test('two stores on one cluster advance the compaction key about once per interval between them, and etcd is compacted', async () => {
    const { endpoints } = await clusterReady();
    const client = new EtcdClient({ endpoints });
    const intervalMs = 300;
    const compactKey = Buffer.from(COMPACT_REVISION_KEY);
    const version = async (): Promise<number> => int64Number((await client.call(ETCD.range, { key: compactKey })).kvs?.[0]?.version);
    const before = await version();
    const first = await client.call(ETCD.put, { key: Buffer.from('/registry/configmaps/compaction/first'), value: Buffer.from('{}') }, { write: true });
    const firstRevision = headerRevision(first.header);
    const stores = await Promise.all([0, 1].map(() => Store3Storage.open({ servers: endpoints, compactionIntervalMs: intervalMs })));
    const started = Date.now();
    try {
      // Six advances: uncoordinated, two stores would make them in three intervals; sharing the key, in five or more.
      while ((await version()) < before + 6) {
        if (Date.now() - started > 30_000) throw new Error('the compaction key did not advance six times in 30 s');
        await new Promise((resolve) => setTimeout(resolve, intervalMs / 3));
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(4.5 * intervalMs);
      await expect(client.call(ETCD.range, { key: Buffer.from('/registry/configmaps/compaction/first'), revision: firstRevision })).rejects.toThrow(
        /compacted/,
      );
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      client.close();
    }
  });
});

(unavailable ? describe.skip : describe)('store3 watches and compaction', () => {
  test('a watch whose history is compacted while it catches up gives each change exactly, then ends with Expired or goes live, never another error', async () => {
    const { endpoints } = await clusterReady();
    const store = await Store3Storage.open({ servers: endpoints, compactionIntervalMs: 0 });
    const namespace = 'catchup-compaction';
    // A kilobyte a change, so that etcd's sends outgrow the stream's flow-control window.
    const padding = 'p'.repeat(1_000);
    const object = (v: string): ContractTestObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace }, data: { v, padding } });
    try {
      const created = await store.create(key('a', namespace), object('0'));
      const start = Number(created.metadata.resourceVersion);
      // More than two of etcd's sync batches (1000 revisions each) of history: etcd reads a change's
      // previous value when it sends the change, and a watch that is not read holds back what etcd
      // has not sent yet, so the compaction below usually falls between etcd's read of a change and
      // its read of the previous value (then the watch must end with Expired).
      const updates = 2_200;
      let next = 1;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          for (let i = next++; i <= updates; i = next++) await store.update(key('a', namespace), object(String(i)));
        }),
      );
      const end = await store.currentRevision();
      const watcher = await store.watch<ContractTestObject>(prefix(namespace), { revision: start });
      const iterator = watcher[Symbol.asyncIterator]();
      const read = (): Promise<IteratorResult<StorageWatchEvent<ContractTestObject>>> => withTimeout(iterator.next(), 10_000, 'the next event');
      const changes: Array<ChangeEvent<ContractTestObject>> = [];
      const take = async (): Promise<void> => {
        const result = await read();
        if (result.done === true) throw new Error('the watch ended without an error');
        if (result.value.type !== 'PROGRESS') changes.push(result.value);
      };
      await take();
      await store.compact(end);
      let failure: unknown;
      while (failure === undefined && (changes.at(-1)?.revision ?? 0) < end) await take().catch((error: unknown) => (failure = error));
      if (failure !== undefined) expect(failure).toMatchObject({ name: 'StorageError', code: 'Expired' });
      // Every change delivered is an update that comes with the state before it: the change before it.
      let previous: ContractTestObject = created;
      for (const change of changes) {
        expect(change).toMatchObject({ type: 'MODIFIED', prevObject: previous });
        previous = change.object;
      }
      await iterator.return?.();
    } finally {
      await store.close();
    }
  }, 60_000);
});

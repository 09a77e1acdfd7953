import type { ChangeEvent, StorageWatchEvent } from '../storage';
import { describeStorageContract, key, prefix, take, withTimeout, type ContractTestObject } from '../testing/contract-suite';
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
  test('a watch that compaction overtakes while it catches up gives each change exactly, then ends with Expired', async () => {
    const { endpoints } = await clusterReady();
    const store = await Store3Storage.open({ servers: endpoints, compactionIntervalMs: 0 });
    const namespace = 'catchup-compaction';
    const padding = 'p'.repeat(16_000);
    const object = (v: string): ContractTestObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace }, data: { v, padding } });
    try {
      const created = await store.create(key('a', namespace), object('0'));
      const start = Number(created.metadata.resourceVersion);
      // A watch from now is fed by the store's live stream; once it has the next change, the store's
      // stream is past `start`, so a watch from `start` catches up on a stream of its own.
      const live = await store.watch<ContractTestObject>(prefix(namespace));
      await store.update(key('a', namespace), object('1'));
      const first = await take(live, 1);
      const behind = await store.watch<ContractTestObject>(prefix(namespace), { revision: start });

      // etcd reads a change's previous value when it sends the change, and a watch that is not read
      // holds back what etcd has not sent yet (flow control: well under a megabyte). 60 changes of
      // 16 kB each are more than etcd can send before the compaction, so the catch-up meets changes
      // without their previous value: Expired, after those it could give exactly.
      const updates = 60;
      for (let i = 2; i <= updates; i++) await store.update(key('a', namespace), object(String(i)));
      const end = await store.currentRevision();
      await store.compact(end);

      const caughtUp: Array<ChangeEvent<ContractTestObject>> = [];
      let failure: unknown;
      for (const iterator = behind[Symbol.asyncIterator](); failure === undefined;) {
        const result = await withTimeout(iterator.next(), 10_000, 'the next event').catch((error: unknown) => (failure = error));
        if (failure !== undefined) break;
        const { done, value } = result as IteratorResult<StorageWatchEvent<ContractTestObject>>;
        if (done === true) throw new Error('the watch ended without an error');
        if (value.type !== 'PROGRESS') caughtUp.push(value);
      }
      expect(failure).toMatchObject({ name: 'StorageError', code: 'Expired' });
      expect(caughtUp.length).toBeGreaterThan(0);
      expect(caughtUp.length).toBeLessThan(updates);
      // The live watch read its changes as they came, before the compaction: all of them, exactly.
      const fed = [first[0], ...(await take(live, updates - 1))] as Array<ChangeEvent<ContractTestObject>>;
      // Every change is an update that comes with the state before it (the change delivered before it).
      const steps = (changes: Array<ChangeEvent<ContractTestObject>>): string[] =>
        changes.map((c) => `${c.type} ${c.prevObject?.data?.v}@${c.prevObject?.metadata.resourceVersion} -> ${c.object.data?.v}@${c.revision}`);
      const expected = Array.from({ length: updates }, (_, i) => `MODIFIED ${i}@${start + i} -> ${i + 1}@${start + i + 1}`);
      expect(steps(fed)).toEqual(expected);
      expect(steps(caughtUp)).toEqual(expected.slice(0, caughtUp.length));
      live.stop();
    } finally {
      await store.close();
    }
  });
});

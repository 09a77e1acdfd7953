import { describeStorageContract } from '../testing/contract-suite';
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

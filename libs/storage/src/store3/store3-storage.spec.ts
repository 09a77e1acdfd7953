import { describeStorageContract } from '../testing/contract-suite';
import { etcdUnavailable, startEtcdCluster, type EtcdCluster } from '../testing/etcd-cluster';
import { EtcdClient } from './etcd-client';
import { ETCD } from './etcd-protocol';
import { ALL_KEYS } from './etcd-watch-stream';
import { Store3Storage } from './store3-storage';

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

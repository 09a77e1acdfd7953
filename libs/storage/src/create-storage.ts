import { EmbeddedStorage } from './embedded/embedded-storage';
import { MongoStorage } from './mongodb/mongodb-storage';
import { mongoUriFromServers } from './mongodb/mongodb-uri';
import { Store3Storage } from './store3/store3-storage';
import type { ValueCodec } from './value-codec';
import type { Storage, StorageBackend } from './storage';
import { StorageError } from './storage-error';

/** What the process options hand to the storage layer (already parsed and validated). */
export interface StorageConfig {
  /** `--storage-backend`. */
  backend: StorageBackend;
  /** `--data-dir`: the embedded store's directory. */
  dataDir?: string;
  /** `--store-servers`: for MongoDB one connection string, possibly split at its commas by the flag parser. */
  servers?: readonly string[];
  /** MongoDB database; default: the one named in the connection string, else `svc`. */
  database?: string;
  /** `--store-cafile`, `--store-certfile`, `--store-keyfile`. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** `--store-compaction-interval` in milliseconds; 0 keeps all history. */
  compactionIntervalMs: number;
  /** How long a too-large revision is waited for; default 3000. */
  tooLargeWaitMs?: number;
  /** Undelivered live events a watcher may hold; default 10000. */
  watchBufferLimit?: number;
  /** How long startup waits for a server (MongoDB, etcd); default 10000. */
  connectTimeoutMs?: number;
  /** `--lease-reuse-duration-seconds` (store3: how long an etcd lease is shared by keys with a TTL). */
  leaseReuseDurationSeconds?: number;
  /** `--storage-media-type`: how values are written; JSON when unset. */
  codec?: ValueCodec;
}

export async function createStorage(config: StorageConfig): Promise<Storage> {
  switch (config.backend) {
    case 'embedded':
      return EmbeddedStorage.open({
        dataDir: config.dataDir ?? '',
        compactionIntervalMs: config.compactionIntervalMs,
        tooLargeWaitMs: config.tooLargeWaitMs,
        watchBufferLimit: config.watchBufferLimit,
      });
    case 'store3':
      return Store3Storage.open({
        servers: config.servers ?? [],
        caFile: config.caFile,
        certFile: config.certFile,
        keyFile: config.keyFile,
        compactionIntervalMs: config.compactionIntervalMs,
        tooLargeWaitMs: config.tooLargeWaitMs,
        watchBufferLimit: config.watchBufferLimit,
        connectTimeoutMs: config.connectTimeoutMs,
        leaseReuseDurationSeconds: config.leaseReuseDurationSeconds,
        codec: config.codec,
      });
    case 'mongodb':
      return MongoStorage.open({
        uri: mongoUriFromServers(config.servers ?? []),
        database: config.database,
        caFile: config.caFile,
        certFile: config.certFile,
        keyFile: config.keyFile,
        compactionIntervalMs: config.compactionIntervalMs,
        tooLargeWaitMs: config.tooLargeWaitMs,
        watchBufferLimit: config.watchBufferLimit,
        connectTimeoutMs: config.connectTimeoutMs,
      });
    default:
      throw new StorageError('InvalidArgument', `unknown storage backend ${JSON.stringify(config.backend)}: use "store3", "embedded" or "mongodb"`);
  }
}

export type {
  ChangeEvent,
  ChangeType,
  CreateOptions,
  GetOptions,
  GuaranteedUpdateOptions,
  ListMatch,
  ListOptions,
  ListResult,
  ProgressEvent,
  Storage,
  StorageBackend,
  StorageDeleteOptions,
  StorageStats,
  StorageWatchEvent,
  StorageWatchOptions,
  StoredMetadata,
  StoredObject,
  TryUpdate,
  UpdateOptions,
  Watcher,
  StorageWriteOptions,
} from './storage';
export { StorageError, isStorageError } from './storage-error';
export { encodeContinue } from './continue-token';
export { MAX_STORED_OBJECT_BYTES } from './stored-value';
export type { StorageErrorCode } from './storage-error';
export { legacyPrefixKey, objectStorageKey, prefixKey, prefixRange, resourceOfKey, resourcePath } from './keys';
export type { ObjectKeyParts, ResourceKeyParts } from './keys';
export { createStorage } from './create-storage';
export type { StorageConfig } from './create-storage';
export { EmbeddedStorage, EMBEDDED_DATABASE_FILE } from './embedded/embedded-storage';
export type { EmbeddedStorageOptions } from './embedded/embedded-storage';
export { MongoStorage } from './mongodb/mongodb-storage';
export type { MongoStorageOptions } from './mongodb/mongodb-storage';
export { mongoUriFromServers, redactMongoUri } from './mongodb/mongodb-uri';
export { DEFAULT_TOO_LARGE_WAIT_MS } from './revision-waiter';
export { DEFAULT_WATCH_BUFFER_LIMIT } from './watch-channel';
export { PullQueue, serialPulls } from './pull-queue';
export { encryptingStorage, needsRewrite, ENCRYPTED_FIELD } from './encryption/encrypting-storage';
export { loadEncryptionConfig, parseEncryptionConfig } from './encryption/encryption-config';
export type { EncryptionConfig } from './encryption/encryption-config';
export { Store3Storage, COMPACT_REVISION_KEY } from './store3/store3-storage';
export type { Store3StorageOptions } from './store3/store3-storage';
export { parseEtcdEndpoints } from './store3/etcd-client';
export { JSON_VALUES } from './value-codec';
export type { ValueCodec } from './value-codec';
export { routedStorage } from './routed-storage';
export type { StorageRoute } from './routed-storage';

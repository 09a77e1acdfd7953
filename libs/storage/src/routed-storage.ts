import type { Storage, StorageWatchOptions, StoredObject } from './storage';

/** Keys under `prefix` live in `storage` (`--store-servers-overrides`). */
export interface StorageRoute {
  prefix: string;
  storage: Storage;
}

/**
 * One Storage over several: each key (and each list, count or watch prefix) goes to the store of the
 * longest route prefix it starts with, else to `main`. Kubernetes' `--etcd-servers-overrides` in the
 * shape of the storage contract: a resource is kept in one store, whose revisions are its own, so a
 * resourceVersion of an overridden resource means nothing to the others (as in Kubernetes).
 */
export function routedStorage(main: Storage, routes: readonly StorageRoute[]): Storage {
  if (routes.length === 0) return main;
  const sorted = [...routes].sort((a, b) => b.prefix.length - a.prefix.length);
  const pick = (key: string | undefined): Storage => (key === undefined ? main : (sorted.find((r) => key.startsWith(r.prefix))?.storage ?? main));
  const all = [main, ...new Set(routes.map((r) => r.storage))];
  return {
    get backend() {
      return main.backend;
    },
    create: (key, object, options) => pick(key).create(key, object, options),
    get: (key, options) => pick(key).get(key, options),
    update: (key, object, options) => pick(key).update(key, object, options),
    guaranteedUpdate: (key, tryUpdate, options) => pick(key).guaranteedUpdate(key, tryUpdate, options),
    delete: (key, options) => pick(key).delete(key, options),
    list: (prefix, options) => pick(prefix).list(prefix, options),
    count: (prefix) => pick(prefix).count(prefix),
    watch: <T extends StoredObject>(prefix: string, options?: StorageWatchOptions) => pick(prefix).watch<T>(prefix, options),
    currentRevision: (keyPrefix) => pick(keyPrefix).currentRevision(keyPrefix),
    compactedRevision: (keyPrefix) => pick(keyPrefix).compactedRevision(keyPrefix),
    compact: (revision) => main.compact(revision),
    healthCheck: async (timeoutMs) => {
      await Promise.all(all.map((store) => store.healthCheck(timeoutMs)));
    },
    stats: async () => (await Promise.all(all.map((store) => store.stats()))).flat(),
    close: async () => {
      await Promise.all(all.map((store) => store.close()));
    },
  };
}

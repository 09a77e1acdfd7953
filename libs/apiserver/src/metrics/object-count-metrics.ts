import type { Scheme } from '@svc/api';
import { prefixKey, type Storage } from '@svc/storage';
import { resourceName } from '../watchcache/cacher-pool';

export interface ObjectCountPollerOptions {
  storage: Storage;
  scheme: Scheme;
  storePrefix: string;
  /** `--store-count-metric-poll-period`; 0 disables. */
  periodMs: number;
  setStorageObjects: (resource: string, count: number) => void;
}

/**
 * Sets `apiserver_storage_objects{resource}` for every resource of the scheme (custom ones included)
 * from `storage.count`, once at start and then every period. Returns the function that stops it.
 */
export function startObjectCountPoller(options: ObjectCountPollerOptions): () => void {
  if (options.periodMs <= 0) return () => undefined;
  let stopped = false;
  let running = false;
  const poll = async (): Promise<void> => {
    if (running || stopped) return;
    running = true;
    try {
      const seen = new Set<string>();
      for (const def of options.scheme.all()) {
        const name = resourceName(def.group, def.resource);
        if (seen.has(name) || stopped) continue;
        seen.add(name);
        try {
          const prefix = prefixKey({ prefix: options.storePrefix, group: def.group, resource: def.resource, builtIn: def.source.type === 'builtin' });
          options.setStorageObjects(name, await options.storage.count(prefix));
        } catch {
          // A store that cannot count now is counted on the next round.
        }
      }
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void poll(), options.periodMs);
  timer.unref();
  void poll();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

export interface StorageSizePollerOptions {
  storage: Storage;
  /** `--store-db-metric-poll-interval`; 0 disables. */
  periodMs: number;
  setStorageSize: (storageClusterId: string, bytes: number) => void;
}

/**
 * Sets `apiserver_storage_size_bytes{storage_cluster_id}` for every store behind the server (one per
 * `--store-servers-overrides` entry besides the main one), once at start and then every period.
 */
export function startStorageSizePoller(options: StorageSizePollerOptions): () => void {
  if (options.periodMs <= 0) return () => undefined;
  let running = false;
  const poll = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      for (const stats of await options.storage.stats()) options.setStorageSize(stats.clusterId, stats.sizeBytes);
    } catch {
      // A store that cannot answer now is measured on the next round.
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void poll(), options.periodMs);
  timer.unref();
  void poll();
  return () => clearInterval(timer);
}

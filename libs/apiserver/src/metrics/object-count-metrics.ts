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
          options.setStorageObjects(name, await options.storage.count(prefixKey({ prefix: options.storePrefix, group: def.group, resource: def.resource })));
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

import { watchCacheSizes } from '@svc/options';

/** The resource a request is about, as the scheme names it; `group` is `""` for the core group. */
export interface WatchCacheTarget {
  group: string;
  resource: string;
}

/** The two API server options that decide caching (`ApiServerOptions` fits). */
export interface WatchCacheSettings {
  /** `--watch-cache`. */
  watchCache: boolean;
  /** `--watch-cache-sizes`: `resource[.group]#size` entries. */
  watchCacheSizes?: readonly string[];
}

/**
 * Whether a resource is served through a {@link Cacher}: `--watch-cache` is on and `--watch-cache-sizes`
 * does not give it size 0 (`resource` for the core group, `resource.group` otherwise). Other sizes only
 * mean "cached": the window sizes itself. Resources that are not cached are read and watched directly
 * from storage.
 */
export function isWatchCached(settings: WatchCacheSettings, target: WatchCacheTarget): boolean {
  if (!settings.watchCache) return false;
  const name = target.group === '' ? target.resource : `${target.resource}.${target.group}`;
  const sizes = watchCacheSizes({ watchCacheSizes: settings.watchCacheSizes ? [...settings.watchCacheSizes] : undefined });
  return sizes.get(name) !== 0;
}

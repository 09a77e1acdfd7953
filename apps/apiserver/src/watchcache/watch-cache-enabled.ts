import { watchCacheSizes, type ApiServerOptions } from '@svc/options';

/** The resource a request is about, as the scheme names it; `group` is `""` for the core group. */
export interface CachedResource {
  group: string;
  resource: string;
}

/**
 * Whether a resource is served through a {@link Cacher}: `--watch-cache` is on and `--watch-cache-sizes`
 * does not give it size 0 (`resource` for the core group, `resource.group` otherwise). Other sizes only
 * mean "cached": the window sizes itself. Resources that are not cached are read and watched directly
 * from storage.
 */
export function isWatchCached(
  options: Pick<ApiServerOptions, 'watchCache' | 'watchCacheSizes'>,
  target: CachedResource,
): boolean {
  if (!options.watchCache) return false;
  const name = target.group === '' ? target.resource : `${target.resource}.${target.group}`;
  return watchCacheSizes(options).get(name) !== 0;
}

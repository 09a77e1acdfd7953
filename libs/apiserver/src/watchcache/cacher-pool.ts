import type { ApiObject } from '@svc/api';
import { prefixKey, type Storage } from '@svc/storage';
import { Cacher, isWatchCached, type WatchCacheSettings } from '../watchcache';

export interface CacherPoolOptions extends WatchCacheSettings {
  /** `--store-prefix`. */
  storePrefix: string;
  /** Passed to every Cacher (tests shorten waits and intervals). */
  cacherOptions?: { waitMs?: number; bookmarkIntervalMs?: number; progressIntervalMs?: number };
}

/**
 * One watch cache per resource (group and plural: every version of a kind shares its objects), made
 * on first use, or not at all when `--watch-cache=false` or `--watch-cache-sizes` gives the resource
 * size 0. Custom resources come and go: `forget` stops the cache of a resource that is gone.
 */
export class CacherPool {
  private readonly cachers = new Map<string, Cacher<ApiObject>>();
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly options: CacherPoolOptions,
  ) {}

  /**
   * The resource's cache, started on first use; undefined when the resource is not cached. `builtIn`
   * says where its objects are kept (see `prefixKey`): false for a custom resource.
   */
  cacherFor(group: string, resource: string, builtIn?: boolean): Cacher<ApiObject> | undefined {
    if (this.stopped || !isWatchCached(this.options, { group, resource })) return undefined;
    const name = resourceName(group, resource);
    let cacher = this.cachers.get(name);
    if (cacher === undefined) {
      cacher = new Cacher<ApiObject>(this.storage, {
        prefix: prefixKey({ prefix: this.options.storePrefix, group, resource, builtIn }),
        resource: name,
        ...this.options.cacherOptions,
      });
      this.cachers.set(name, cacher);
      void cacher.start();
    }
    return cacher;
  }

  /** Names (`resource[.group]`) of caches that were started and are not following their resource now. */
  notReady(): string[] {
    return [...this.cachers.entries()].filter(([, c]) => !c.ready).map(([name]) => name);
  }

  /** Stops and drops the cache of a resource that is no longer served (its watches end). */
  async forget(group: string, resource: string): Promise<void> {
    const name = resourceName(group, resource);
    const cacher = this.cachers.get(name);
    if (cacher === undefined) return;
    this.cachers.delete(name);
    await cacher.stop();
  }

  /** Stops every cache: their client watches end without error. */
  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.cachers.values()];
    this.cachers.clear();
    await Promise.all(all.map((c) => c.stop()));
  }
}

/** `pods`, `deployments.apps`: how metrics and messages name a resource. */
export function resourceName(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

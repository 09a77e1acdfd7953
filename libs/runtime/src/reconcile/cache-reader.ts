import type { Scheme } from '@svc/api';
import type { KubeObject, Lister, ListerSelector, SharedInformer, SharedInformerFactory } from '@svc/informers';
import { informerResourceId, resolveResource, type ResourceRef } from './resource-ref';

/**
 * Typed reads of the informer caches the manager already holds (controller-runtime's cache-backed
 * client reads): no call to the API server. Objects are the cached ones, frozen: copy before
 * changing. A reconcile's reads already show its key's own earlier writes (read-your-writes).
 */
export interface CacheReader {
  /** The object of `key` (a Request fits), undefined when the cache holds none. */
  get<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, key: { namespace?: string | undefined; name: string }): T | undefined;
  /** The cached objects, of one namespace when given, matching the label selector when given. */
  list<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, options?: { namespace?: string | undefined; labelSelector?: ListerSelector | undefined }): T[];
  /**
   * The cached objects an index (declared in `indexes` of `@Reconciler` or `@Runnable`) files under
   * `key`, in every namespace the cache holds.
   */
  byIndex<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, index: string, key: string): T[];
  /** The lister of the resource's cache, for reads by namespace. */
  lister<T extends KubeObject = KubeObject>(ref: ResourceRef<T>): Lister<T>;
}

/** A read the caches cannot answer: no informer holds the resource, or it has not synced. */
export class CacheReadError extends Error {
  override readonly name = 'CacheReadError';
}

/**
 * Reads the informers of a SharedInformerFactory without creating any: a resource is readable once
 * a reconciler or runnable names it (`for`, `owns`, `watches`, `reads`, `indexes`) or someone asked
 * `manager.informerFor` for it, and its first list has arrived. A reader scoped to a namespace (a controller's `namespace`)
 * reads that namespace when none is given.
 */
export class InformerCacheReader implements CacheReader {
  constructor(
    private readonly factory: SharedInformerFactory,
    private readonly scheme: Scheme,
    private readonly namespace?: string,
  ) {}

  get<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, key: { namespace?: string | undefined; name: string }): T | undefined {
    const { informer, namespace } = this.informerOf(ref, key.namespace);
    const lister = informer.lister();
    return (namespace === undefined ? lister.get(key.name) : lister.namespace(namespace).get(key.name)) as T | undefined;
  }

  list<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    options: { namespace?: string | undefined; labelSelector?: ListerSelector | undefined } = {},
  ): T[] {
    const { informer, namespace } = this.informerOf(ref, options.namespace);
    const lister = informer.lister();
    return (namespace === undefined ? lister.list(options.labelSelector) : lister.namespace(namespace).list(options.labelSelector)) as T[];
  }

  byIndex<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, index: string, key: string): T[] {
    const { informer } = this.informerOf(ref, undefined);
    if (!informer.indexer.indexNames().includes(index)) throw new CacheReadError(`the cache has no index ${index}: declare it in indexes`);
    return informer.indexer.byIndex(index, key) as T[];
  }

  lister<T extends KubeObject = KubeObject>(ref: ResourceRef<T>): Lister<T> {
    return this.informerOf(ref, undefined).informer.lister() as unknown as Lister<T>;
  }

  /**
   * The informer that holds the objects asked for: the one of the namespace read (the asked one,
   * else this reader's), else the one of all namespaces. `namespace` is undefined for a read of
   * everything (a cluster-scoped resource, or all namespaces).
   */
  private informerOf(ref: ResourceRef<unknown>, asked: string | undefined): { informer: SharedInformer<KubeObject>; namespace: string | undefined } {
    const info = resolveResource(ref, this.scheme);
    const resource = informerResourceId(ref, info);
    const namespace = info.namespaced ? asked || this.namespace || undefined : undefined;
    const informer =
      (namespace !== undefined ? this.factory.get<KubeObject>({ resource, namespace }) : undefined) ?? this.factory.get<KubeObject>({ resource });
    if (!informer) {
      throw new CacheReadError(
        `no cache holds ${resource}${namespace !== undefined ? ` of namespace ${namespace}` : ''}: name it in for, owns, watches or reads`,
      );
    }
    if (!informer.hasSynced()) throw new CacheReadError(`the cache of ${resource} has not synced yet`);
    return { informer, namespace };
  }
}

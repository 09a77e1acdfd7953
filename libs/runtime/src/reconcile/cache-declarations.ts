import type { Client } from '@svc/client';
import type { KubeObject, SharedInformer, SharedInformerFactory } from '@svc/informers';
import { informerForResource } from '../controller/informer-for-resource';
import type { ResourceRef } from './resource-ref';

/**
 * A resource a reconciler or runnable reads besides what it reconciles: its informer is made with
 * the others, so `cache.get` and `cache.list` answer for it. `{ resource, namespace }` caches one
 * namespace only (a node's Leases in `kube-node-lease`).
 */
export type CachedResource = ResourceRef<unknown> | { resource: ResourceRef<unknown>; namespace: string };

/**
 * An index of a cache (controller-runtime's field indexer): the keys each object is found under by
 * `cache.byIndex(resource, name, key)`. Declared where the reader is declared, so the index exists
 * before the cache fills; readers that declare the same name share it (the first one's function).
 */
export interface CacheIndex {
  resource: ResourceRef<unknown>;
  name: string;
  /** The keys of one object of `resource` (typed by {@link cacheIndex}). */
  keys(this: void, object: never): readonly string[];
}

/** An index of `resource`'s cache, `keys` typed by the resource's objects. */
export function cacheIndex<T>(resource: ResourceRef<T>, name: string, keys: (object: unknown extends T ? KubeObject : T) => readonly string[]): CacheIndex {
  return { resource, name, keys };
}

/** What a reconciler or runnable declares about the caches it reads. */
export interface CacheDeclarations {
  /** Resources read besides the reconciled, owned and watched ones. */
  reads?: readonly CachedResource[];
  /** Indexes of the caches read, for `cache.byIndex`. */
  indexes?: readonly CacheIndex[];
}

function splitRead(read: CachedResource): { resource: ResourceRef<unknown>; namespace?: string } {
  return typeof read === 'object' && read !== null && 'resource' in read && 'namespace' in read ? read : { resource: read };
}

/**
 * Makes the informers `declared` reads (in `namespace` when the reader is scoped to one) and adds its
 * indexes to the informers of their resources; returns the informers, for the manager's sync and
 * health checks.
 */
export function prepareCaches(factory: SharedInformerFactory, client: Client, declared: CacheDeclarations, namespace?: string): SharedInformer<KubeObject>[] {
  const informers: SharedInformer<KubeObject>[] = [];
  for (const read of declared.reads ?? []) {
    const { resource, namespace: own } = splitRead(read);
    informers.push(informerForResource(factory, client, resource as ResourceRef<KubeObject>, own ?? namespace));
  }
  for (const index of declared.indexes ?? []) {
    const informer = informerForResource(factory, client, index.resource as ResourceRef<KubeObject>, namespace);
    const keys = index.keys as (object: KubeObject) => readonly string[];
    if (!informer.indexer.indexNames().includes(index.name)) informer.addIndexers({ [index.name]: (obj: KubeObject) => keys(obj) });
    informers.push(informer);
  }
  return informers;
}

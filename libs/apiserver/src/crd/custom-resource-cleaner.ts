import type { ApiObject, KindDefinition } from '@svc/api';
import { isStorageError, objectStorageKey, prefixKey, type Storage } from '@svc/storage';

/**
 * Deletes the objects of a custom resource when its definition goes away. The API server's
 * resource registry implements it so that deletes go through the ordinary path (finalizers,
 * DELETED events from the watch cache); {@link storageCleaner} is the fallback.
 */
export interface CustomResourceCleaner {
  /**
   * Deletes every object of `kind` in every namespace, and resolves with how many are still
   * present afterwards (objects waiting on finalizers); the caller tries again until none remain.
   */
  deleteAll(kind: KindDefinition): Promise<number>;
}

/**
 * Deletes straight from the store, finalizers notwithstanding. Watchers still see DELETED
 * events, since every watch is fed by the store's own change stream.
 */
export function storageCleaner(storage: Storage, storePrefix: string): CustomResourceCleaner {
  return {
    async deleteAll(kind: KindDefinition): Promise<number> {
      const prefix = prefixKey({ prefix: storePrefix, group: kind.group, resource: kind.resource, builtIn: false });
      const { items } = await storage.list<ApiObject>(prefix);
      for (const item of items) {
        const name = item.metadata?.name;
        if (!name) continue;
        const key = objectStorageKey({
          prefix: storePrefix,
          group: kind.group,
          resource: kind.resource,
          builtIn: false,
          namespace: kind.namespaced ? item.metadata?.namespace : undefined,
          name,
        });
        try {
          await storage.delete(key);
        } catch (error) {
          if (!isStorageError(error, 'KeyNotFound')) throw error;
        }
      }
      return storage.count(prefix);
    },
  };
}

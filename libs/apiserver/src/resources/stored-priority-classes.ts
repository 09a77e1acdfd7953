import { priorityClassDefinition, type PriorityClass } from '@svc/api';
import { isStorageError, objectStorageKey, prefixKey, type Storage } from '@svc/storage';
import type { PriorityClassLookup } from '../admission';

/** How many classes are read at most when looking for the global default. */
const MAX_PRIORITY_CLASSES = 10_000;

/** Reads PriorityClasses straight from storage: one created a moment ago is seen at once. */
export function storedPriorityClasses(storage: Storage, storePrefix: string): PriorityClassLookup {
  const { group, resource } = priorityClassDefinition;
  return {
    async get(name) {
      try {
        return await storage.get<PriorityClass>(objectStorageKey({ prefix: storePrefix, group, resource, namespace: '', name }));
      } catch (error) {
        if (isStorageError(error, 'KeyNotFound') || error instanceof TypeError) return undefined;
        throw error;
      }
    },
    async list() {
      return (
        await storage.list<PriorityClass & { metadata: { resourceVersion?: string } }>(prefixKey({ prefix: storePrefix, group, resource }), {
          limit: MAX_PRIORITY_CLASSES,
        })
      ).items;
    },
  };
}

import { priorityClassDefinition, type PriorityClass } from '@svc/api';
import { isStorageError, objectStorageKey, prefixKey, type Storage } from '@svc/storage';
import { storedConfigurations, type PriorityClassLookup } from '../admission';

/** How many classes are read at most when looking for the global default. */
const MAX_PRIORITY_CLASSES = 10_000;

/**
 * Reads PriorityClasses from storage for the Priority plugin: a class named by a pod straight from the
 * store (one created a moment ago is seen at once), the list it finds the global default in reused for
 * a moment, as Kubernetes reads it from an informer, so that pod creates do not each list the classes
 * (a write of a class reads them afresh, to refuse a second global default made a moment after the first).
 */
export function storedPriorityClasses(storage: Storage, storePrefix: string): PriorityClassLookup {
  const { group, resource } = priorityClassDefinition;
  const cached = storedConfigurations<PriorityClass>(storage, storePrefix, group, resource);
  const readAll = async () =>
    (
      await storage.list<PriorityClass & { metadata: { resourceVersion?: string } }>(prefixKey({ prefix: storePrefix, group, resource }), {
        limit: MAX_PRIORITY_CLASSES,
      })
    ).items;
  return {
    async get(name) {
      try {
        return await storage.get<PriorityClass>(objectStorageKey({ prefix: storePrefix, group, resource, namespace: '', name }));
      } catch (error) {
        if (isStorageError(error, 'KeyNotFound') || error instanceof TypeError) return undefined;
        throw error;
      }
    },
    list: (fresh) => (fresh ? readAll() : cached()),
  };
}

import type { KindDefinition } from '@svc/api';
import type { ResourceRegistries } from '../registry/registries';
import type { CustomResourceCleaner } from './custom-resource-cleaner';

/** The field manager of the deletes made on a definition's behalf. */
export const CRD_CLEANUP_FIELD_MANAGER = 'customresourcecleanup';

/**
 * Deletes a definition's objects through the resource registry, as a DELETE of the collection
 * would: finalizers are honoured (such objects stay Terminating and are counted as remaining),
 * and watchers see DELETED events from the watch cache.
 */
export function registryCleaner(registries: ResourceRegistries): CustomResourceCleaner {
  return {
    async deleteAll(kind: KindDefinition): Promise<number> {
      const registry = registries.forDefinition(kind);
      await registry.deleteCollection('', {}, {}, { fieldManager: CRD_CLEANUP_FIELD_MANAGER });
      const left = await registry.list('', {});
      return left.items.length;
    },
  };
}

import type { ApiObject } from '@svc/api';
import { toStatusError } from '../generic/status-mapping';
import type { Store } from '../generic/store';
import type { DeleteRequest, ListQuery, WriteOptions } from '../types';
import { deleteObject } from './delete';

/**
 * DELETE of a collection: every object the selectors pick is deleted as one DELETE would (without the
 * request's preconditions), `--delete-collection-workers` deletes at a time, as Kubernetes' store does.
 * An object already gone is skipped. Returns the objects deleted or left Terminating.
 */
export async function deleteCollection(
  store: Store,
  namespace: string,
  query: ListQuery,
  request: DeleteRequest = {},
  options: WriteOptions = {},
): Promise<ApiObject[]> {
  const listed = await store.list(namespace, {
    labelSelector: query.labelSelector,
    fieldSelector: query.fieldSelector,
    resourceVersion: query.resourceVersion,
    resourceVersionMatch: query.resourceVersionMatch,
  });
  const items = [...listed.items];
  const results = new Array<ApiObject | undefined>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      const meta = items[index].metadata ?? {};
      try {
        results[index] = (await deleteObject(store, meta.namespace ?? '', meta.name ?? '', { ...request, preconditions: undefined }, options)).object;
      } catch (error) {
        if (toStatusError(error, store.groupResource).code !== 404) throw error;
      }
    }
  };
  const workers = Math.max(1, Math.min(store.context.deleteCollectionWorkers, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results.filter((r): r is ApiObject => r !== undefined);
}

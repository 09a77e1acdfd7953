import type { ApiObject } from '@svc/api';
import { updateManagedFields, type JsonObject } from '@svc/machinery';
import { MAX_STORED_OBJECT_BYTES } from '@svc/storage';
import type { Store } from './store';
import { resetFieldsOf } from './update-targets';
import type { WriteState } from './write-state';

/** Records in `object.metadata.managedFields` which fields the write's manager set, against the live object (none for a create). */
export function trackManagedFields(store: Store, live: ApiObject | undefined, object: ApiObject, w: WriteState): void {
  // managedFields only add to an object, so one that is already too large to store will be refused
  // by the store (413, after validation has had its say): its fields are not worth tracking. A 2 MB
  // patch of 150,000 keys held the event loop for a second here before that 413.
  if (isTooLargeToStore(object)) return;
  const entries = updateManagedFields({
    live: live as JsonObject | undefined,
    updated: object as JsonObject,
    manager: w.options.fieldManager ?? '',
    apiVersion: store.storedApiVersion,
    subresource: w.target || undefined,
    schema: store.compiled.schema,
    now: w.now,
    resetFields: resetFieldsOf(store.definition, w.target),
  });
  const meta = (object.metadata ??= {});
  if (entries.length > 0) meta.managedFields = entries;
  else delete meta.managedFields;
}

/**
 * Whether a store will surely refuse an object for its size. Stores encode it without its
 * resourceVersion, so the limit is given room for that member.
 */
function isTooLargeToStore(object: ApiObject): boolean {
  const limit = MAX_STORED_OBJECT_BYTES + 64;
  const text = JSON.stringify(object);
  return text.length > limit / 3 && Buffer.byteLength(text, 'utf8') > limit;
}

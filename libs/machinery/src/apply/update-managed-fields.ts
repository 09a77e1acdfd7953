import type { JsonSchema } from '../json-schema';
import { JsonObject, isJsonObject } from '../patch';
import { compareObjects, withoutFields } from './compare';
import { isResetManagedFields } from './field-manager';
import type { ManagedFieldsEntry } from '../meta/managed-fields-entry';
import { ManagerRecords, capUpdateManagers, decodeManagedFields, encodeManagedFields, formatManagedFieldsTime, managerIdentifier } from './managed-fields';
import { reconcileRecords, takeOwnership } from './ownership';
import { schemaTypesFor } from './schema-types';
import { resetFieldSet, stripServerManaged, withoutManagedFields } from './server-fields';

export interface UpdateManagedFieldsOptions {
  /** The stored object; undefined when the write creates it. */
  live: JsonObject | undefined;
  /** The object about to be stored, with `metadata.managedFields` as the request left it. */
  updated: JsonObject;
  /** The writer: the request's `fieldManager`, else managerFromUserAgent. */
  manager: string;
  /** The apiVersion the request used (`apps/v1`). */
  apiVersion: string;
  /** `status`, `scale`, ... when the write goes to a subresource. */
  subresource?: string;
  /** The kind's schema; without one every field is deduced (maps granular, lists atomic). */
  schema?: JsonSchema;
  now: Date;
  /** Paths the server resets for this request, such as `[['status']]` on a main resource with a status subresource. */
  resetFields?: readonly (readonly string[])[];
  /**
   * What a create is compared against (default `{}`). Kubernetes compares with the zero value of
   * the Go type, so struct fields that always exist there never get a `"."`; pass that shape to
   * reproduce its fieldsV1 exactly.
   */
  emptyObject?: JsonObject;
}

/**
 * Field ownership after a create, update or non-apply patch (rule 3): the writer's Update entry
 * (one per manager, apiVersion and subresource) gains every field the write changed or added,
 * and every other entry, Apply or Update, loses the fields the write changed, added or removed;
 * non-apply writes never conflict (rule 4). Entries left empty disappear (rule 10).
 *
 * managedFields the request carries are used when they decode and are not empty (a client may
 * edit them); otherwise the live ones are kept. A single empty entry resets them (rule 11): the
 * writer then owns only what this write changed. A subresource write always starts from the
 * live entries. An existing object without entries is not tracked until its next apply, as in
 * Kubernetes. If the fields cannot be computed, the live entries are returned unchanged.
 *
 * Returns the entries to store in `metadata.managedFields` (none: remove the field).
 */
export function updateManagedFields(options: UpdateManagedFieldsOptions): ManagedFieldsEntry[] {
  const { live, updated } = options;
  const liveRaw = isJsonObject(live?.metadata) ? live.metadata.managedFields : undefined;
  const requestRaw = isJsonObject(updated.metadata) ? updated.metadata.managedFields : undefined;
  const liveRecords = decodeOrEmpty(liveRaw);

  let records: ManagerRecords;
  let reset = false;
  if (options.subresource) {
    records = liveRecords;
  } else if (isResetManagedFields(requestRaw)) {
    records = new Map();
    reset = true;
  } else {
    const fromRequest = decodeOrEmpty(requestRaw);
    records = fromRequest.size > 0 ? fromRequest : liveRecords;
  }
  if (records.size === 0 && live !== undefined && !reset) return [];

  try {
    const types = schemaTypesFor(options.schema);
    const root = types.root();
    reconcileRecords(records, root);
    const before = withoutManagedFields(live ?? options.emptyObject ?? {});
    const after = withoutManagedFields(updated);
    const ignored = resetFieldSet(options.resetFields);
    const comparison = withoutFields(compareObjects(before, after, root), ignored);

    const selfId = managerIdentifier(options.manager, 'Update', options.apiVersion, options.subresource ?? '');
    takeOwnership(records, '', comparison);
    const changed = stripServerManaged(comparison.modified.union(comparison.added).recursiveDifference(ignored));
    if (!changed.isEmpty()) {
      const previous = records.get(selfId);
      records.set(selfId, {
        manager: options.manager,
        operation: 'Update',
        apiVersion: options.apiVersion,
        subresource: options.subresource ?? '',
        time: formatManagedFieldsTime(options.now),
        fields: previous ? changed.union(previous.fields) : changed,
      });
    }
    capUpdateManagers(records);
    return encodeManagedFields(records);
  } catch {
    // A write never fails over its bookkeeping; Kubernetes keeps the live entries in that case.
    return encodeManagedFields(liveRecords);
  }
}

function decodeOrEmpty(raw: unknown): ManagerRecords {
  try {
    return decodeManagedFields(raw);
  } catch {
    return new Map();
  }
}

import type { JsonSchema } from '../json-schema';
import { JsonObject, isJsonObject } from '../patch';
import { StatusError } from '../status';
import { newBadRequest, newInternalError } from '../status-errors';
import { applyConflictError } from './apply-conflict';
import { compareObjects, isSame, withoutFields } from './compare';
import type { ManagedFieldsEntry } from '../meta/managed-fields-entry';
import { ManagerRecords, decodeManagedFields, encodeManagedFields, formatManagedFieldsTime, managerIdentifier } from './managed-fields';
import { KUBECTL_APPLY_MANAGER, conflictsLeftByLastApplied, updateLastApplied } from './last-applied';
import { mergeApplied } from './merge';
import { findConflicts, reconcileRecords, takeOwnership } from './ownership';
import { pruneUnowned } from './prune';
import { schemaTypesFor } from './schema-types';
import { resetFieldSet, restoreResetFields, stripServerManaged, withoutManagedFields } from './server-fields';
import { stripNulls } from './strip-nulls';
import { toFieldSet } from './to-field-set';
import { FieldWalkError } from './walk-error';

export interface ApplyPatchOptions {
  /** The stored object; undefined when the apply creates it. */
  live: JsonObject | undefined;
  /** The parsed apply body (YAML or JSON): the fields the applier has an opinion on. */
  applied: unknown;
  /** The request's `fieldManager` (required for apply; validate it with validateFieldManager). */
  manager: string;
  /** The request's `force`: take conflicting fields from their managers instead of failing. */
  force: boolean;
  /** The apiVersion of the endpoint; the applied object must carry the same. */
  apiVersion: string;
  /** The kind of the endpoint; when given, the applied object must carry the same. */
  kind?: string;
  subresource?: string;
  schema?: JsonSchema;
  now: Date;
  /** Paths the server resets for this request (`[['status']]` on a main resource with a status subresource). */
  resetFields?: readonly (readonly string[])[];
  /** What a first apply to an untracked object is compared against (default `{}`); see UpdateManagedFieldsOptions. */
  emptyObject?: JsonObject;
}

export interface ApplyPatchResult {
  /** The object to store (create or update), with `metadata.managedFields` set (or absent when none). */
  object: JsonObject;
  managedFields: ManagedFieldsEntry[];
}

/** The manager given the fields of an object that had no managedFields when first applied to. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';

/**
 * Server-side apply. Merges the configuration into the live object by the schema (associative
 * lists by key, sets by value, atomic values whole, maps and structs field by field), removes
 * what this manager applied before and no longer applies when nobody else owns it (rule 6), and
 * records exactly the applied fields as the manager's Apply entry.
 *
 * Throws a StatusError: 409 Conflict when the change would modify fields other managers own
 * and `force` is false (rule 4; equal values are shared, not conflicts); 400 BadRequest when the
 * body carries `metadata.managedFields` (rule 1), is not an object of the endpoint's type, or
 * has list items without their keys or with repeated keys.
 */
export function applyPatch(options: ApplyPatchOptions): ApplyPatchResult {
  const applied = checkApplied(options);
  const types = schemaTypesFor(options.schema);
  const root = types.root();
  const ignored = resetFieldSet(options.resetFields);
  const now = formatManagedFieldsTime(options.now);

  let records: ManagerRecords;
  try {
    records = decodeManagedFields(isJsonObject(options.live?.metadata) ? options.live.metadata.managedFields : undefined);
  } catch (error) {
    throw newInternalError(`failed to decode managed fields: ${(error as Error).message}`);
  }
  const live = options.live ? withoutManagedFields(options.live) : undefined;
  const empty = withoutManagedFields(options.emptyObject ?? {});

  if (live && records.size === 0) {
    // Kubernetes gives what an untracked object holds to one manager, so the apply can conflict with it.
    const before = withoutFields(compareObjects(empty, live, root), ignored);
    const fields = stripServerManaged(before.added.union(before.modified).recursiveDifference(ignored));
    if (!fields.isEmpty()) {
      const apiVersion = typeof live.apiVersion === 'string' && live.apiVersion ? live.apiVersion : options.apiVersion;
      records.set(managerIdentifier(BEFORE_FIRST_APPLY_MANAGER, 'Update', apiVersion, ''), {
        manager: BEFORE_FIRST_APPLY_MANAGER,
        operation: 'Update',
        apiVersion,
        subresource: '',
        time: now,
        fields,
      });
    }
  }
  reconcileRecords(records, root);

  let merged: JsonObject;
  let appliedFields;
  try {
    appliedFields = toFieldSet(applied, root).recursiveDifference(ignored);
    merged = mergeApplied(live ?? {}, applied, root) as JsonObject;
  } catch (error) {
    if (error instanceof FieldWalkError) throw newBadRequest(`failed to create typed patch object: ${error.message}`);
    throw error;
  }

  const selfId = managerIdentifier(options.manager, 'Apply', options.apiVersion, options.subresource ?? '');
  const previous = records.get(selfId);
  records.set(selfId, {
    manager: options.manager,
    operation: 'Apply',
    apiVersion: options.apiVersion,
    subresource: options.subresource ?? '',
    time: previous?.time,
    fields: appliedFields,
  });
  if (previous && !previous.fields.isEmpty()) {
    let owned = appliedFields;
    for (const record of records.values()) owned = owned.union(record.fields);
    pruneUnowned(merged, root, previous.fields, owned);
  }
  restoreResetFields(merged, live, options.resetFields);

  const comparison = withoutFields(compareObjects(live ?? empty, merged, root), ignored);
  let conflicts = findConflicts(records, selfId, comparison);
  // An object last applied client-side is upgraded by kubectl's server-side apply: what it applied is forgiven.
  if (conflicts.length > 0 && !options.force && live && options.manager === KUBECTL_APPLY_MANAGER) {
    conflicts = conflictsLeftByLastApplied(live, root, conflicts);
  }
  if (conflicts.length > 0 && !options.force) throw applyConflictError(conflicts);
  takeOwnership(records, selfId, comparison);

  const own = stripServerManaged(appliedFields);
  if (own.isEmpty()) {
    records.delete(selfId);
  } else {
    // Kubernetes stamps an applier when the object changes; a new or changed claim is stamped too.
    const keepTime = previous?.time !== undefined && isSame(comparison) && previous.fields.equals(own);
    records.set(selfId, { ...records.get(selfId)!, fields: own, time: keepTime ? previous?.time : now });
  }

  stripNulls(merged, root);
  if (live && options.manager === KUBECTL_APPLY_MANAGER) updateLastApplied(merged, applied);
  const managedFields = encodeManagedFields(records);
  const metadata = isJsonObject(merged.metadata) ? merged.metadata : undefined;
  if (managedFields.length > 0) {
    if (metadata) metadata.managedFields = managedFields as JsonObject[];
    else merged.metadata = { managedFields: managedFields as JsonObject[] };
  } else if (metadata) {
    delete metadata.managedFields;
  }
  return { object: merged, managedFields };
}

function checkApplied(options: ApplyPatchOptions): JsonObject {
  const applied = options.applied;
  if (!isJsonObject(applied)) throw newBadRequest('the apply body must be an object');
  const metadata = applied.metadata;
  if (isJsonObject(metadata) && metadata.managedFields !== undefined && metadata.managedFields !== null) {
    throw newBadRequest('metadata.managedFields must be nil');
  }
  const apiVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : '';
  const kind = typeof applied.kind === 'string' ? applied.kind : '';
  if (apiVersion !== options.apiVersion || (options.kind !== undefined && kind !== options.kind)) {
    throw invalidObjectType(apiVersion, kind);
  }
  return applied;
}

/** Kubernetes prints a GroupVersionKind as `apps/v1, Kind=Deployment`. */
function invalidObjectType(apiVersion: string, kind: string): StatusError {
  return newBadRequest(`invalid object type: ${apiVersion}, Kind=${kind}`);
}

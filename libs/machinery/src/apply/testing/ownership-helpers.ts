import { JsonObject, isJsonObject } from '../../patch';
import { FieldSet } from '../field-set';
import type { ManagedFieldsEntry } from '../../meta/managed-fields-entry';
import { formatFieldPath } from '../path-element';

export function entriesOf(object: JsonObject): ManagedFieldsEntry[] {
  const metadata = object.metadata;
  if (!isJsonObject(metadata) || !Array.isArray(metadata.managedFields)) return [];
  return metadata.managedFields as ManagedFieldsEntry[];
}

/** The entry of a manager (and operation, when several); fails the test when there is none. */
export function entryOf(object: JsonObject, manager: string, operation?: 'Apply' | 'Update'): ManagedFieldsEntry {
  const found = entriesOf(object).filter((e) => e.manager === manager && (!operation || e.operation === operation));
  if (found.length !== 1) throw new Error(`expected one entry of ${manager}, found ${found.length}`);
  return found[0];
}

/** The paths a manager owns, printed as in conflict messages; [] when it has no entry. */
export function ownedBy(object: JsonObject, manager: string, operation?: 'Apply' | 'Update'): string[] {
  const found = entriesOf(object).filter((e) => e.manager === manager && (!operation || e.operation === operation));
  return found.flatMap((e) => FieldSet.fromFieldsV1(e.fieldsV1).paths().map(formatFieldPath));
}

export function managersOf(object: JsonObject): string[] {
  return entriesOf(object).map((e) => `${e.manager}/${e.operation}`);
}

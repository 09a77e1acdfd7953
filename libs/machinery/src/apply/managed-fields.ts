import { metaTime } from '../meta-time';
import { isJsonObject } from '../patch';
import type { ManagedFieldsEntry, ManagedFieldsOperation } from '../meta/managed-fields-entry';
import { FieldSet } from './field-set';

/** A decoded entry: who, how, and the field set. */
export interface ManagerRecord {
  readonly manager: string;
  readonly operation: ManagedFieldsOperation;
  readonly apiVersion: string;
  readonly subresource: string;
  readonly time: string | undefined;
  readonly fields: FieldSet;
}

/** Records by manager identifier. */
export type ManagerRecords = Map<string, ManagerRecord>;

/**
 * Kubernetes' manager identifier: the entry without its fields and time, and, for appliers,
 * without its apiVersion, so one applier keeps one entry whichever version it applies through.
 * The JSON form matches Go's, which orders conflict messages.
 */
export function managerIdentifier(manager: string, operation: ManagedFieldsOperation, apiVersion: string, subresource: string): string {
  const id: Record<string, string> = {};
  if (manager) id.manager = manager;
  id.operation = operation;
  if (operation === 'Update' && apiVersion) id.apiVersion = apiVersion;
  if (subresource) id.subresource = subresource;
  return JSON.stringify(id);
}

export function recordIdentifier(record: Pick<ManagerRecord, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return managerIdentifier(record.manager, record.operation, record.apiVersion, record.subresource);
}

/**
 * Decodes `metadata.managedFields` as Kubernetes does: each entry needs operation `Apply` or
 * `Update`, an apiVersion and fieldsType `FieldsV1`. Throws an Error naming the first problem.
 * A missing list decodes to no managers.
 */
export function decodeManagedFields(raw: unknown): ManagerRecords {
  const records: ManagerRecords = new Map();
  if (raw === undefined || raw === null) return records;
  if (!Array.isArray(raw)) throw new Error('managedFields must be a list');
  raw.forEach((entry: unknown, i) => {
    if (!isJsonObject(entry)) throw new Error(`managed fields entry ${i} must be an object`);
    const operation = entry.operation;
    if (operation !== 'Apply' && operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    const apiVersion = typeof entry.apiVersion === 'string' ? entry.apiVersion : '';
    if (apiVersion.length < 1) throw new Error('apiVersion must not be empty');
    if (entry.fieldsType === undefined || entry.fieldsType === '') throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`);
    const manager = typeof entry.manager === 'string' ? entry.manager : '';
    const subresource = typeof entry.subresource === 'string' ? entry.subresource : '';
    const time = typeof entry.time === 'string' && entry.time !== '' ? entry.time : undefined;
    const fields = entry.fieldsV1 === undefined || entry.fieldsV1 === null ? new FieldSet() : FieldSet.fromFieldsV1(entry.fieldsV1);
    const record: ManagerRecord = { manager, operation, apiVersion, subresource, time, fields };
    records.set(recordIdentifier(record), record);
  });
  return records;
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Kubernetes' order: appliers first, then by time (oldest first), manager, apiVersion, subresource. */
export function compareManagedFieldsEntries(
  p: Pick<ManagedFieldsEntry, 'operation' | 'time' | 'manager' | 'apiVersion' | 'subresource'>,
  q: Pick<ManagedFieldsEntry, 'operation' | 'time' | 'manager' | 'apiVersion' | 'subresource'>,
): number {
  return (
    compareText(p.operation ?? '', q.operation ?? '') ||
    seconds(p.time) - seconds(q.time) ||
    compareText(p.manager ?? '', q.manager ?? '') ||
    compareText(p.apiVersion ?? '', q.apiVersion ?? '') ||
    compareText(p.subresource ?? '', q.subresource ?? '')
  );
}

/** Encodes records as sorted managedFields entries; empty field sets are dropped. */
export function encodeManagedFields(records: ManagerRecords): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const record of records.values()) {
    if (record.fields.isEmpty()) continue;
    const entry: ManagedFieldsEntry = { manager: record.manager, operation: record.operation, apiVersion: record.apiVersion };
    if (record.time) entry.time = record.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = record.fields.toFieldsV1();
    if (record.subresource) entry.subresource = record.subresource;
    entries.push(entry);
  }
  return entries.sort(compareManagedFieldsEntries);
}

/** Kubernetes' time format for managedFields: RFC 3339, whole seconds, UTC. */
export function formatManagedFieldsTime(now: Date): string {
  return metaTime(now);
}

/** How many Update entries an object keeps before the oldest are folded together. */
export const MAX_UPDATE_MANAGERS = 10;
/** The manager that holds folded Update entries. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * Keeps at most MAX_UPDATE_MANAGERS Update entries: the oldest are merged, per apiVersion, into
 * an `ancient-changes` entry, as Kubernetes bounds the list of managers.
 */
export function capUpdateManagers(records: ManagerRecords): void {
  const updaters = [...records.entries()].filter(([, r]) => r.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort(([idA, a], [idB, b]) => seconds(a.time) - seconds(b.time) || compareText(idA, idB));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const [id, record] = updaters[i];
    const bucket = managerIdentifier(ANCIENT_CHANGES_MANAGER, 'Update', record.apiVersion, '');
    const first = firstOfVersion.get(record.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(record.apiVersion, id);
      continue;
    }
    if (!records.has(bucket)) {
      const firstRecord = records.get(first)!;
      records.delete(first);
      records.set(bucket, { ...firstRecord, manager: ANCIENT_CHANGES_MANAGER, subresource: '' });
    }
    const current = records.get(bucket)!;
    records.set(bucket, { ...current, fields: record.fields.union(current.fields), time: record.time });
    records.delete(id);
    length--;
  }
}

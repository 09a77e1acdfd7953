import type { Long } from 'mongodb';
import type { ChangeEvent, StoredObject } from '../storage';
import { decodeObject } from '../stored-value';

/** The revision counter and the compacted revision, one document each. */
export interface MetaDocument {
  _id: 'revision' | 'compaction';
  value: number | Long;
}

/** Current state of one key; the store's fast path for get and latest-state lists. */
export interface KvDocument {
  _id: string;
  rev: number;
  createRev: number;
  value: string;
  /** When the key expires (ms since the epoch); absent for never. */
  expiresAt?: number;
}

/**
 * One change, keyed by its revision (the kine shape). A deletion carries the last state in `value`;
 * a modification carries the previous state in `prevValue`, so a change stream event alone is enough to
 * build a watch event with its previous object.
 */
export interface LogDocument {
  _id: number;
  key: string;
  created: boolean;
  deleted: boolean;
  createRev: number;
  prevRev: number;
  value: string;
  prevValue?: string;
}

/** A meta value as a number: the driver returns a Long as a number when it fits 53 bits, but may not. */
export function metaValue(document: MetaDocument | null | undefined, fallback: number): number {
  const value = document?.value;
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : value.toNumber();
}

export const COLLECTIONS = { meta: 'store_meta', kv: 'store_kv', log: 'store_log' } as const;

export function eventFromLog(row: LogDocument): ChangeEvent<StoredObject> {
  const object = decodeObject(row.value, row._id);
  if (row.deleted) {
    return { type: 'DELETED', key: row.key, object, prevObject: decodeObject(row.value, row.prevRev), revision: row._id };
  }
  if (row.created) return { type: 'ADDED', key: row.key, object, revision: row._id };
  return {
    type: 'MODIFIED',
    key: row.key,
    object,
    prevObject: row.prevValue === undefined ? undefined : decodeObject(row.prevValue, row.prevRev),
    revision: row._id,
  };
}

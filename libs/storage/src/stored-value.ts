import type { StoredObject } from './storage';
import { StorageError } from './storage-error';

/**
 * The largest object a store takes, as JSON text: 1.5 MiB, etcd's default request limit, which bounds
 * every Kubernetes object. Patches can grow an object past any one request body; this keeps every
 * later write, read, list and watch of it bounded.
 */
export const MAX_STORED_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** JSON text of an object as stored: without resourceVersion, which is derived from the revision. */
export function encodeObject(object: StoredObject): string {
  const metadata = object.metadata;
  if (metadata?.resourceVersion === undefined) return JSON.stringify(object);
  const { resourceVersion: _dropped, ...rest } = metadata;
  return JSON.stringify({ ...object, metadata: rest });
}

/** encodeObject for a write: refuses an object larger than MAX_STORED_OBJECT_BYTES. */
export function encodeObjectForWrite(key: string, object: StoredObject): string {
  const text = encodeObject(object);
  // Characters bound bytes from below; the exact count is needed only near the limit.
  if (text.length * 3 > MAX_STORED_OBJECT_BYTES) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_STORED_OBJECT_BYTES) throw StorageError.objectTooLarge(key, bytes, MAX_STORED_OBJECT_BYTES);
  }
  return text;
}

/** A fresh object from stored JSON text, carrying `revision` as its resourceVersion. */
export function decodeObject<T extends StoredObject>(text: string, revision: number): T {
  const object = JSON.parse(text) as T;
  (object.metadata ??= {}).resourceVersion = String(revision);
  return object;
}

/** The uid recorded in stored JSON text. */
export function uidOf(text: string): string | undefined {
  return (JSON.parse(text) as StoredObject).metadata?.uid;
}

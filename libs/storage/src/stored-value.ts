import type { StoredObject } from './storage';

/** JSON text of an object as stored: without resourceVersion, which is derived from the revision. */
export function encodeObject(object: StoredObject): string {
  const metadata = object.metadata;
  if (metadata?.resourceVersion === undefined) return JSON.stringify(object);
  const { resourceVersion: _dropped, ...rest } = metadata;
  return JSON.stringify({ ...object, metadata: rest });
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

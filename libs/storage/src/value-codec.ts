import type { StoredObject } from './storage';

/**
 * How a store turns an object into the bytes it keeps, and back (`--storage-media-type`). Every codec
 * reads what any other wrote: a value is recognised by its first bytes, so changing the flag needs no
 * migration (objects are rewritten in the new form as they are next written).
 */
export interface ValueCodec {
  /** The bytes to keep; `json` is the object's JSON text without resourceVersion, already size-checked. */
  encode(key: string, json: string, object: StoredObject): Buffer;
  /** A fresh object from kept bytes. */
  decode(key: string, bytes: Uint8Array): StoredObject;
}

/** `application/json`: the JSON text itself. */
export const JSON_VALUES: ValueCodec = {
  encode: (_key, json) => Buffer.from(json, 'utf8'),
  decode: (_key, bytes) => JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as StoredObject,
};

import { SERVER_NESTING_DEPTH } from '../nesting-depth';
import { badRequest } from './patch-error';
import { JsonObject, JsonValue, isJsonObject } from './json-value';

// Working copies are built on null-prototype objects: a key such as "__proto__" or "constructor"
// coming from a request body is then an ordinary key, never a path to Object.prototype.

export function emptyObject(): JsonObject {
  return Object.create(null) as JsonObject;
}

export function hasKey(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Deep copy of a parsed JSON document into working form; refuses values JSON cannot carry. */
export function cloneJson(value: unknown, what: string, depth = 0): JsonValue {
  if (depth > SERVER_NESTING_DEPTH) throw badRequest(`${what} is nested too deeply`);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw badRequest(`${what} contains a number JSON cannot represent`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => cloneJson(item, what, depth + 1));
  if (isJsonObject(value)) {
    const copy = emptyObject();
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      copy[key] = cloneJson(item, what, depth + 1);
    }
    return copy;
  }
  throw badRequest(`${what} is not a JSON document (found a value of type ${typeof value})`);
}

/** Converts a working copy back to ordinary objects, keeping any "__proto__" key as data. */
export function toPlainJson(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (!isJsonObject(value)) return value;
  const plain: JsonObject = {};
  for (const key of Object.keys(value)) {
    const item = toPlainJson(value[key]);
    if (key === '__proto__') {
      Object.defineProperty(plain, key, { value: item, enumerable: true, writable: true, configurable: true });
    } else {
      plain[key] = item;
    }
  }
  return plain;
}

export { jsonEqual } from '../json-equal';

export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export function kindOf(value: JsonValue): JsonKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as JsonKind;
}

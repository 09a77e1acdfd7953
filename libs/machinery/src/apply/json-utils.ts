import { JsonObject, JsonValue, isJsonObject } from '../patch';

export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

export { jsonEqual } from '../json-equal';

/** A deep copy; keys such as `__proto__` stay ordinary data. */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  if (!isJsonObject(value)) return value;
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) setKey(copy, key, cloneJson(value[key]));
  return copy as T;
}

/** Sets a key as own data even when it is `__proto__`. */
export function setKey(object: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

import { SERVER_NESTING_DEPTH } from '../nesting-depth';
import { cloneJson, emptyObject, hasKey, jsonEqual, toPlainJson } from './json-tree';
import { JsonObject, JsonValue, isJsonObject } from './json-value';
import { badRequest } from './patch-error';

/** Applies an RFC 7386 JSON Merge Patch: null deletes, objects merge, everything else replaces. */
export function mergePatch(original: JsonObject, patch: unknown): JsonObject {
  if (!isJsonObject(patch)) {
    // RFC 7386 would let a non-object patch replace the document; a resource must stay an object.
    throw badRequest('a merge patch must be a JSON object');
  }
  checkJson(patch, 'the merge patch');
  return merged(original, patch);
}

/**
 * The merge of `patch` into `target`, built as new plain objects in one pass: the target's keys keep
 * their order, new keys follow in the patch's order, and nothing is shared with either input. A wide
 * patch (150,000 keys) used to be copied three times over (the object, the patch, the result).
 */
function merged(target: JsonValue | undefined, patch: JsonObject): JsonObject {
  const result: JsonObject = {};
  if (isJsonObject(target)) {
    for (const key of Object.keys(target)) {
      const change = hasKey(patch, key) ? patch[key] : undefined;
      if (change === undefined) setMember(result, key, copied(target[key]));
      else if (change !== null) setMember(result, key, mergedValue(target[key], change));
    }
  }
  for (const key of Object.keys(patch)) {
    if (patch[key] === null || patch[key] === undefined || (isJsonObject(target) && hasKey(target, key))) continue;
    setMember(result, key, mergedValue(undefined, patch[key]));
  }
  return result;
}

function mergedValue(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  return isJsonObject(patch) ? merged(target, patch) : copied(patch);
}

/** A copy of a JSON value; strings, numbers and booleans are immutable and are shared as they are. */
function copied(value: JsonValue): JsonValue {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/** Sets a member, keeping a "__proto__" key as data rather than a change of prototype. */
function setMember(object: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** Refuses what JSON cannot carry (as the copy it replaces did), and nesting past the server's bound. */
function checkJson(value: unknown, what: string, depth = 0): void {
  if (depth > SERVER_NESTING_DEPTH) throw badRequest(`${what} is nested too deeply`);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw badRequest(`${what} contains a number JSON cannot represent`);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) checkJson(item, what, depth + 1);
    return;
  }
  if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) checkJson(item, what, depth + 1);
    }
    return;
  }
  throw badRequest(`${what} is not a JSON document (found a value of type ${typeof value})`);
}

/**
 * The RFC 7386 patch that turns `original` into `modified`. A null in `modified` cannot be
 * expressed by a merge patch (null means delete), so such a field comes out deleted.
 */
export function createMergePatch(original: JsonObject, modified: JsonObject): JsonObject {
  const from = cloneJson(original, 'the original object') as JsonObject;
  const to = cloneJson(modified, 'the modified object') as JsonObject;
  return toPlainJson(diff(from, to)) as JsonObject;
}

function diff(original: JsonObject, modified: JsonObject): JsonObject {
  const patch = emptyObject();
  for (const key of Object.keys(original)) {
    if (!hasKey(modified, key)) patch[key] = null;
  }
  for (const key of Object.keys(modified)) {
    const after = modified[key];
    if (!hasKey(original, key)) {
      patch[key] = after;
      continue;
    }
    const before = original[key];
    if (isJsonObject(before) && isJsonObject(after)) {
      const nested = diff(before, after);
      if (Object.keys(nested).length > 0) patch[key] = nested;
    } else if (!jsonEqual(before, after)) {
      patch[key] = after;
    }
  }
  return patch;
}

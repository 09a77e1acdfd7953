import { cloneJson, emptyObject, hasKey, jsonEqual, toPlainJson } from './json-tree';
import { JsonObject, JsonValue, isJsonObject } from './json-value';
import { badRequest } from './patch-error';

/** Applies an RFC 7386 JSON Merge Patch: null deletes, objects merge, everything else replaces. */
export function mergePatch(original: JsonObject, patch: unknown): JsonObject {
  if (!isJsonObject(patch)) {
    // RFC 7386 would let a non-object patch replace the document; a resource must stay an object.
    throw badRequest('a merge patch must be a JSON object');
  }
  const target = cloneJson(original, 'the object') as JsonObject;
  return toPlainJson(mergeInto(target, cloneJson(patch, 'the merge patch'))) as JsonObject;
}

function mergeInto(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const result = isJsonObject(target) ? target : emptyObject();
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete result[key];
    } else {
      result[key] = mergeInto(hasKey(result, key) ? result[key] : undefined, value);
    }
  }
  return result;
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

import { JsonObject, JsonValue, isJsonObject } from '../patch';
import { FieldSet } from './field-set';
import { cloneJson, hasOwn, setKey } from './json-utils';
import { FieldSetPath, fieldElement } from './path-element';

/**
 * Fields no manager owns because the server sets them. Removed as exact members only, as
 * Kubernetes does: owning `metadata.labels` is unaffected by `metadata` being stripped.
 */
export const SERVER_MANAGED_FIELDS: readonly (readonly string[])[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'uid'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'generation'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'deletionTimestamp'],
  ['metadata', 'managedFields'],
  ['metadata', 'selfLink'],
  ['metadata', 'clusterName'],
];

function toPath(names: readonly string[]): FieldSetPath {
  return names.map((name) => fieldElement(name));
}

const STRIP_SET = FieldSet.of(...SERVER_MANAGED_FIELDS.map(toPath));

export function stripServerManaged(set: FieldSet): FieldSet {
  return set.difference(STRIP_SET);
}

/** The set of reset paths (such as `status` on the main resource), to be removed recursively. */
export function resetFieldSet(resetFields: readonly (readonly string[])[] | undefined): FieldSet {
  return FieldSet.of(...(resetFields ?? []).filter((p) => p.length > 0).map(toPath));
}

/** The object without `metadata.managedFields`, for reading only: members other than metadata are shared. */
export function withoutManagedFields(object: JsonObject): JsonObject {
  // Only read by the comparisons, never changed: the object's other members are shared, not copied
  // (a deep copy of a 2 MB object cost more than the comparison itself).
  const metadata = object.metadata;
  if (!isJsonObject(metadata) || !hasOwn(metadata, 'managedFields')) return object;
  const rest: JsonObject = {};
  for (const key of Object.keys(metadata)) if (key !== 'managedFields') setKey(rest, key, metadata[key]);
  const copy: JsonObject = {};
  for (const key of Object.keys(object)) setKey(copy, key, key === 'metadata' ? rest : object[key]);
  return copy;
}

/** Puts back, in place, the live values of the reset paths (or removes them when live has none). */
export function restoreResetFields(target: JsonObject, live: JsonObject | undefined, resetFields: readonly (readonly string[])[] | undefined): void {
  for (const path of resetFields ?? []) {
    if (path.length === 0) continue;
    const liveValue = valueAt(live, path);
    let node: JsonObject = target;
    let ok = true;
    for (const name of path.slice(0, -1)) {
      const next: JsonValue | undefined = hasOwn(node, name) ? node[name] : undefined;
      if (isJsonObject(next)) {
        node = next;
      } else if (liveValue !== undefined) {
        const created: JsonObject = {};
        setKey(node, name, created);
        node = created;
      } else {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    const last = path[path.length - 1];
    if (liveValue === undefined) delete node[last];
    else setKey(node, last, cloneJson(liveValue));
  }
}

function valueAt(object: JsonObject | undefined, path: readonly string[]): JsonValue | undefined {
  let node: JsonValue | undefined = object;
  for (const name of path) {
    if (!isJsonObject(node) || !hasOwn(node, name)) return undefined;
    node = node[name];
  }
  return node;
}

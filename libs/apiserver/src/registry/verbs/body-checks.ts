import { kindDecodeError, storedDefinition, storedNamespace, type ApiObject, type KindDefinition } from '@svc/api';
import { fieldInvalid, MAX_NESTING_DEPTH, newBadRequest, newInvalid, sameApiVersion, valueNestingDepth } from '@svc/machinery';
import type { Store } from '../generic/store';

// A decoded body made into an object of the endpoint's kind, as Kubernetes' decoder and the checks of
// its create and update handlers make it: one object, of the kind, in the path's namespace and name.

/** The body as an object of the kind; a body that names a system namespace by its Kubernetes name is the one stored under the spec's. */
export function objectOf(def: KindDefinition, value: unknown): ApiObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw newBadRequest(`the request body must be a ${def.kind} object`);
  }
  const object = value as ApiObject;
  const meta = object.metadata;
  if (meta !== undefined && (typeof meta !== 'object' || meta === null || Array.isArray(meta))) {
    const detail = kindDecodeError(def, object) ?? 'metadata must be an object';
    throw newBadRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${detail}`);
  }
  if (meta !== undefined) {
    if (def.namespaced && typeof meta.namespace === 'string') meta.namespace = storedNamespace(meta.namespace);
    const storedName = def.strategy.storedName;
    if (storedName && typeof meta.name === 'string') meta.name = storedName(meta.name);
  }
  return object;
}

/**
 * apiVersion and kind default to the endpoint's; another served version of the same kind, under
 * either name of the group, is taken as this one (versions of a kind convert without change here);
 * anything else is a 400. The object is stored with the registered apiVersion, and managedFields
 * a client sends back under the group's other name are read as this group's.
 */
export function checkTypeMeta(store: Store, object: ApiObject): void {
  const def = store.definition;
  const kind = object.kind;
  if (kind !== undefined && kind !== def.kind) {
    throw newBadRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${def.kind})`);
  }
  const apiVersion = object.apiVersion;
  if (apiVersion !== undefined && apiVersion !== store.apiVersion && apiVersion !== store.storedApiVersion) {
    const other = typeof apiVersion === 'string' ? store.context.scheme.byApiVersionKind(apiVersion, def.kind) : undefined;
    if (other === undefined || storedDefinition(other).group !== store.stored.group) {
      throw newBadRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${store.apiVersion})`);
    }
  }
  object.apiVersion = store.storedApiVersion;
  object.kind = def.kind;
  const managed = object.metadata?.managedFields;
  if (store.apiVersion !== store.storedApiVersion && Array.isArray(managed)) {
    for (const entry of managed) {
      if (typeof entry === 'object' && entry !== null && typeof entry.apiVersion === 'string' && sameApiVersion(entry.apiVersion, store.storedApiVersion)) {
        entry.apiVersion = store.storedApiVersion;
      }
    }
  }
}

/** A namespaced object names the path's namespace or none. */
export function checkNamespace(def: KindDefinition, object: ApiObject, namespace: string): void {
  if (!def.namespaced) return;
  const given = object.metadata?.namespace;
  if (given && given !== storedNamespace(namespace)) {
    throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

/** The object names the path's name, or takes it. */
export function checkName(object: ApiObject, name: string): void {
  const meta = (object.metadata ??= {});
  if (meta.name && meta.name !== name) throw nameMismatch(meta.name, name);
  meta.name = name;
}

/** Kubernetes' checkName after a patch: the result is an object whose name is exactly the URL's. */
export function checkPatchedIdentity(def: KindDefinition, patched: unknown, name: string, jsonPatch: boolean): asserts patched is ApiObject {
  const object = objectOf(def, patched);
  const given = object.metadata?.name;
  if (given !== name) throw nameMismatch(typeof given === 'string' ? given : '', name);
  // A JSON patch can put a value anywhere: the result may nest deeper than any body could. A merge
  // or strategic merge result takes each value whole from the object or the patch, both already
  // bounded, so it nests no deeper than they do. The server's own managedFields, which follow the
  // object's fields a few levels further down, are not counted.
  if (jsonPatch && valueNestingDepth({ ...object, metadata: { ...object.metadata, managedFields: undefined } }) > MAX_NESTING_DEPTH) {
    throw newInvalid({ group: def.group, kind: def.kind }, name, [fieldInvalid('', '', `the patched object nests more than ${MAX_NESTING_DEPTH} levels deep`)]);
  }
}

export function nameMismatch(given: string, path: string): Error {
  return newBadRequest(`the name of the object (${given}) does not match the name on the URL (${path})`);
}

import { JsonObject, JsonValue, isJsonObject } from '../patch';
import { cloneJson, hasOwn, setKey } from './json-utils';
import { IndexedItem, indexList } from './list-items';
import { FieldSetPath, PathElement } from './path-element';
import { ListNodeType, MapNodeType, NodeType, fieldType, isGranularContainer, shapeOf } from './schema-types';
import { FieldWalkError } from './walk-error';

/**
 * Merges an applied configuration into the live object the way structured-merge-diff does:
 * leaves and atomic values take the applied value, granular maps merge key by key, sets and
 * associative lists item by item. Nothing is removed here (pruning is separate). The result is
 * a fresh copy; neither input is changed. The configuration must have passed toFieldSet, which
 * rejects list items without usable keys; a live list with such items keeps them in place.
 */
export function mergeApplied(live: JsonValue | undefined, applied: JsonValue, type: NodeType): JsonValue {
  const merged = mergeNode(live, applied, type, []);
  return cloneJson(merged as JsonValue);
}

function mergeNode(lhs: JsonValue | undefined, rhs: JsonValue | undefined, type: NodeType, path: FieldSetPath): JsonValue | undefined {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  // A null where a granular container belongs is an empty container: it adds nothing to a live one.
  if (rhs === null && isGranularContainer(type) && hasEntries(lhs)) return lhs;
  const l = shapeOf(type, lhs);
  const r = shapeOf(type, rhs);
  if (l.kind === 'map' && r.kind === 'map') {
    if (!hasEntries(lhs) && !hasEntries(rhs)) return rhs;
    return mergeMaps(lhs as JsonObject, rhs as JsonObject, r.type, path);
  }
  if (l.kind === 'list' && r.kind === 'list') {
    if (!hasEntries(lhs) && !hasEntries(rhs)) return rhs;
    return mergeLists(lhs as JsonValue[], rhs as JsonValue[], r.type, path);
  }
  return rhs;
}

function hasEntries(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return isJsonObject(value) && Object.keys(value).length > 0;
}

/** Live key order first, then the keys the configuration adds, in its order. */
function mergeMaps(lhs: JsonObject, rhs: JsonObject, type: MapNodeType, path: FieldSetPath): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(lhs)) {
    const child = fieldType(type, key).type;
    const value = mergeNode(lhs[key], hasOwn(rhs, key) ? rhs[key] : undefined, child, [...path, { kind: 'field', name: key }]);
    if (value !== undefined) setKey(out, key, value);
  }
  for (const key of Object.keys(rhs)) {
    if (hasOwn(lhs, key)) continue;
    const child = fieldType(type, key).type;
    const value = mergeNode(undefined, rhs[key], child, [...path, { kind: 'field', name: key }]);
    if (value !== undefined) setKey(out, key, value);
  }
  return out;
}

/**
 * structured-merge-diff's list order: live items keep their places, applied items their
 * relative order; items the configuration names are emitted in its order, each live item not
 * named by it stays where it was relative to them.
 */
function mergeLists(lhs: JsonValue[], rhs: JsonValue[], type: ListNodeType, path: FieldSetPath): JsonValue[] {
  const right = indexList(type, rhs);
  if (right.errors.length > 0) throw new FieldWalkError(path, right.errors[0]);
  const left = indexList(type, lhs);
  const out: JsonValue[] = [];
  const emit = (pe: PathElement | undefined, l: IndexedItem | undefined, r: IndexedItem | undefined): void => {
    const value = pe ? mergeNode(l?.value, r?.value, type.item, [...path, pe]) : l?.value;
    if (value !== undefined) out.push(value);
  };

  const shared = right.order.filter((item) => left.byId.has(item.id)).map((item) => item.id);
  let sharedAt = 0;
  let nextShared: string | undefined = shared[sharedAt++];
  const advanceShared = (): void => {
    nextShared = shared[sharedAt++];
  };

  let li = 0;
  let ri = 0;
  while (li < left.order.length || ri < right.order.length) {
    if (li < left.order.length && ri < right.order.length) {
      const l = left.order[li];
      const r = right.order[ri];
      if (l.id === r.id) {
        emit(l.pe, l, r);
        li++;
        ri++;
        advanceShared();
        continue;
      }
      if (right.byId.has(l.id) && nextShared !== undefined && nextShared !== l.id) {
        // A shared item whose turn has not come: the configuration places it later.
        li++;
        continue;
      }
    }
    if (li < left.order.length) {
      const l = left.order[li];
      if (!right.byId.has(l.id)) {
        emit(l.pe, l, undefined);
        li++;
        continue;
      }
    }
    if (ri < right.order.length) {
      const r = right.order[ri];
      emit(r.pe, left.byId.get(r.id), r);
      ri++;
      if (nextShared === r.id) advanceShared();
    } else {
      // Only a shared live item already emitted from the configuration is left here.
      li++;
    }
  }
  return out;
}

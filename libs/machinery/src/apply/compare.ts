import { JsonValue } from '../patch';
import { FieldSet } from './field-set';
import { hasOwn, jsonEqual } from './json-utils';
import { indexList } from './list-items';
import { FieldSetPath, PathElement } from './path-element';
import { NodeType, Shape, isGranularContainer, shapeOf } from './schema-types';

/** What changed between two versions of an object, as field sets. */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

export function isSame(c: Comparison): boolean {
  return c.added.isEmpty() && c.modified.isEmpty() && c.removed.isEmpty();
}

/** Drops the given paths, and everything below them, from a comparison. */
export function withoutFields(c: Comparison, ignored: FieldSet): Comparison {
  if (ignored.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(ignored),
    modified: c.modified.recursiveDifference(ignored),
    removed: c.removed.recursiveDifference(ignored),
  };
}

/**
 * structured-merge-diff's Compare: leaves (and atomic values) are added, removed or modified;
 * a granular map, struct or list item is itself added or removed when it appears or disappears,
 * which is how the writer of a new label map or list item comes to own its `"."`. A null where
 * a granular container belongs counts as an existing empty container.
 */
export function compareObjects(lhs: JsonValue | undefined, rhs: JsonValue | undefined, type: NodeType): Comparison {
  const c = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  // One path array for the whole walk, pushed and popped: FieldSet.insert does not keep it.
  compareNode(lhs, rhs, type, [], c);
  return c;
}

type Side = 'absent' | 'empty' | Shape;

function sideOf(type: NodeType, value: JsonValue | undefined): Side {
  if (value === undefined) return 'absent';
  if (value === null && isGranularContainer(type)) return 'empty';
  return shapeOf(type, value);
}

function isContainer(side: Side): side is Exclude<Shape, { kind: 'leaf' }> {
  return typeof side === 'object' && side.kind !== 'leaf';
}

function compareNode(lhs: JsonValue | undefined, rhs: JsonValue | undefined, type: NodeType, path: PathElement[], c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  const l = sideOf(type, lhs);
  const r = sideOf(type, rhs);
  const lContainer = isContainer(l);
  const rContainer = isContainer(r);
  if (!lContainer && !rContainer) {
    leaf(lhs, rhs, path, c);
    return;
  }
  const compatible =
    (lContainer && rContainer && l.kind === r.kind) || (lContainer && (r === 'absent' || r === 'empty')) || (rContainer && (l === 'absent' || l === 'empty'));
  if (!compatible) {
    // The value changed kind (deduced types only): the node is modified, its old contents gone.
    leaf(lhs, rhs, path, c);
    if (lContainer) children(l, lhs, undefined, path, c);
    if (rContainer) children(r, undefined, rhs, path, c);
    return;
  }
  // Two empty containers compare as leaves; counting while walking spares a pass over a wide map.
  if (children(lContainer ? l : (r as Exclude<Shape, { kind: 'leaf' }>), lhs, rhs, path, c) === 0) {
    leaf(lhs, rhs, path, c);
    return;
  }
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function leaf(lhs: JsonValue | undefined, rhs: JsonValue | undefined, path: FieldSetPath, c: Comparison): void {
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
}

/** Compares the entries of two containers; returns how many entries the two hold in all. */
function children(shape: Exclude<Shape, { kind: 'leaf' }>, lhs: JsonValue | undefined, rhs: JsonValue | undefined, path: PathElement[], c: Comparison): number {
  if (shape.kind === 'map') {
    const left = (lhs !== null && typeof lhs === 'object' && !Array.isArray(lhs) ? lhs : {}) as Record<string, JsonValue>;
    const right = (rhs !== null && typeof rhs === 'object' && !Array.isArray(rhs) ? rhs : {}) as Record<string, JsonValue>;
    const type = shape.type;
    let count = 0;
    const visit = (key: string, lv: JsonValue | undefined, rv: JsonValue | undefined) => {
      count++;
      path.push({ kind: 'field', name: key });
      compareNode(lv, rv, type.declared(key) ?? type.elements, path, c);
      path.pop();
    };
    for (const key of Object.keys(left)) visit(key, left[key], hasOwn(right, key) ? right[key] : undefined);
    for (const key of Object.keys(right)) if (!hasOwn(left, key)) visit(key, undefined, right[key]);
    return count;
  }
  const left = indexList(shape.type, Array.isArray(lhs) ? lhs : []);
  const right = indexList(shape.type, Array.isArray(rhs) ? rhs : []);
  const seen = new Set<string>();
  for (const item of [...left.order, ...right.order]) {
    if (!item.pe || seen.has(item.id)) continue;
    seen.add(item.id);
    path.push(item.pe);
    compareNode(left.byId.get(item.id)?.value, right.byId.get(item.id)?.value, shape.type.item, path, c);
    path.pop();
  }
  return left.order.length + right.order.length;
}

import { JsonValue } from '../patch';
import { FieldSet } from './field-set';
import { indexList } from './list-items';
import { FieldSetPath } from './path-element';
import { NodeType, fieldType, isGranularContainer, shapeOf } from './schema-types';
import { FieldWalkError } from './walk-error';

/**
 * The fields a (partial) object sets, as structured-merge-diff's ToFieldSet computes them:
 * leaves and atomic values are members; granular lists contribute their items, granular maps
 * the keys that are not declared struct fields. A declared struct field is owned through what
 * it contains, except when it is null or an empty object: `resources: {}` (or cert-manager's
 * `selfSigned: {}`) is itself a set field, as structured-merge-diff keeps the empty/null distinction.
 */
export function toFieldSet(value: JsonValue, type: NodeType): FieldSet {
  const set = new FieldSet();
  walk(value, type, [], set);
  return set;
}

function walk(value: JsonValue, type: NodeType, path: FieldSetPath, set: FieldSet): void {
  if (value === null && isGranularContainer(type)) return;
  const shape = shapeOf(type, value);
  switch (shape.kind) {
    case 'leaf':
      set.insert(path);
      return;
    case 'map': {
      const object = value as Record<string, JsonValue>;
      for (const key of Object.keys(object)) {
        const child = fieldType(shape.type, key);
        const childPath = [...path, { kind: 'field', name: key } as const];
        const member = object[key];
        walk(member, child.type, childPath, set);
        if (!child.declared || member === null || isEmptyObject(member)) set.insert(childPath);
      }
      return;
    }
    case 'list': {
      const indexed = indexList(shape.type, value as JsonValue[]);
      if (indexed.errors.length > 0) throw new FieldWalkError(path, indexed.errors[0]);
      for (const item of indexed.order) {
        const itemPath = [...path, item.pe!];
        walk(item.value, shape.type.item, itemPath, set);
        set.insert(itemPath);
      }
      return;
    }
  }
}

function isEmptyObject(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const _key in value) return false;
  return true;
}

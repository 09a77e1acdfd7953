import { JsonObject, JsonValue } from '../patch';
import { FieldSet } from './field-set';
import { listItemElement } from './list-items';
import { PathElement } from './path-element';
import { NodeType, fieldType, shapeOf } from './schema-types';

const EMPTY = new FieldSet();

/**
 * Removes from `value` (in place) what an applier no longer applies (rule 6): every field, map
 * entry or list item that its previous configuration set (`previous`), that no manager owns
 * now (`owned`, the union of every manager's fields including the applier's new ones), and
 * under which nobody owns anything either. A list item something of which another manager owns
 * stays, with its key fields; a granular container left empty by this goes too.
 */
export function pruneUnowned(value: JsonValue, type: NodeType, previous: FieldSet, owned: FieldSet): void {
  pruneNode(value, type, previous, owned);
}

function pruneNode(value: JsonValue, type: NodeType, previous: FieldSet, owned: FieldSet, keyFields: readonly string[] = []): void {
  const shape = shapeOf(type, value);
  if (shape.kind === 'map') {
    const object = value as JsonObject;
    for (const key of Object.keys(object)) {
      // An item kept for another manager keeps its identity.
      if (keyFields.includes(key)) continue;
      const pe: PathElement = { kind: 'field', name: key };
      const verdict = judge(pe, previous, owned);
      if (verdict === 'remove') {
        delete object[key];
      } else if (verdict === 'descend') {
        const child = object[key];
        const before = entries(child);
        pruneNode(child, fieldType(shape.type, key).type, previous.child(pe)!, owned.child(pe) ?? EMPTY);
        if (before > 0 && entries(child) === 0) delete object[key];
      }
    }
  } else if (shape.kind === 'list') {
    const list = value as JsonValue[];
    const kept: JsonValue[] = [];
    for (const item of list) {
      const pe = listItemElement(shape.type, item);
      if ('error' in pe) {
        kept.push(item);
        continue;
      }
      const verdict = judge(pe, previous, owned);
      if (verdict === 'remove') continue;
      if (verdict === 'descend') pruneNode(item, shape.type.item, previous.child(pe)!, owned.child(pe) ?? EMPTY, shape.type.keys);
      kept.push(item);
    }
    list.splice(0, list.length, ...kept);
  }
}

function judge(pe: PathElement, previous: FieldSet, owned: FieldSet): 'keep' | 'remove' | 'descend' {
  if (!previous.touches(pe)) return 'keep';
  if (!owned.touches(pe)) return 'remove';
  return previous.child(pe) ? 'descend' : 'keep';
}

function entries(value: JsonValue): number {
  if (Array.isArray(value)) return value.length;
  if (value !== null && typeof value === 'object') return Object.keys(value).length;
  return -1;
}

import { JsonValue, isJsonObject } from '../patch';
import { KeyField, PathElement, formatFieldPath, keyElement, pathElementKey, valueElement } from './path-element';
import { ListNodeType } from './schema-types';

/** The path element naming an item of a granular list, or the reason it has none. */
export function listItemElement(list: ListNodeType, item: JsonValue): PathElement | { error: string } {
  if (list.relation === 'set') {
    if (isJsonObject(item)) return { error: 'associative list without keys has an element that is a map type' };
    return valueElement(item);
  }
  if (item === null) return { error: 'associative list with keys may not have a null element' };
  if (!isJsonObject(item)) return { error: 'associative list with keys may not have non-map elements' };
  const fields: KeyField[] = [];
  for (const name of list.keys) {
    if (Object.prototype.hasOwnProperty.call(item, name)) {
      fields.push([name, item[name]]);
      continue;
    }
    const fallback = list.keyDefault(name);
    if (fallback === undefined) {
      return { error: `associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)` };
    }
    fields.push([name, fallback]);
  }
  return keyElement(fields);
}

export interface IndexedItem {
  /** Identity within the list: the path element's key, or a private token for items without one. */
  readonly id: string;
  readonly pe: PathElement | undefined;
  readonly value: JsonValue;
}

export interface IndexedList {
  readonly order: IndexedItem[];
  /** Items by id; the first of duplicates wins. */
  readonly byId: Map<string, IndexedItem>;
  readonly errors: string[];
}

/**
 * Indexes a list by item identity. Items without a usable key, and repeats of a key, get private
 * ids so that walkers keep them as they are and never merge into them.
 */
export function indexList(list: ListNodeType, items: readonly JsonValue[]): IndexedList {
  const order: IndexedItem[] = [];
  const byId = new Map<string, IndexedItem>();
  const errors: string[] = [];
  items.forEach((value, i) => {
    const pe = listItemElement(list, value);
    if ('error' in pe) {
      errors.push(`element ${i}: ${pe.error}`);
      order.push({ id: `#${i}`, pe: undefined, value });
      return;
    }
    const id = pathElementKey(pe);
    if (byId.has(id)) {
      errors.push(`duplicate entries for key ${formatFieldPath([pe])}`);
      order.push({ id: `#${i}`, pe: undefined, value });
      return;
    }
    const entry = { id, pe, value };
    byId.set(id, entry);
    order.push(entry);
  });
  return { order, byId, errors };
}

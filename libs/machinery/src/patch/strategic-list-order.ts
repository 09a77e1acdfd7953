import { hasKey } from './json-tree';
import { JsonValue, isJsonObject } from './json-value';
import { badRequest } from './patch-error';

export const DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER = '$setElementOrder';

/** The field a parallel-list directive key such as `$setElementOrder/containers` refers to. */
export function directiveKey(patchKey: string, prefix: string): string {
  const slash = patchKey.indexOf('/');
  if (slash < 0 || patchKey.slice(0, slash) !== prefix) {
    throw badRequest(`${JSON.stringify(patchKey)} is not of the form ${prefix}/<field>`);
  }
  return patchKey.slice(slash + 1);
}

export function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

const NO_KEY = Symbol('no merge key');

function identity(item: JsonValue, mergeKey: string | undefined): unknown {
  if (mergeKey === undefined) return item;
  return isJsonObject(item) && hasKey(item, mergeKey) ? item[mergeKey] : NO_KEY;
}

function positions(list: JsonValue[], mergeKey: string | undefined): Map<unknown, number> {
  const map = new Map<unknown, number>();
  list.forEach((item, index) => {
    const id = identity(item, mergeKey);
    if (id !== NO_KEY && !map.has(id)) map.set(id, index);
  });
  return map;
}

function sortBy(items: JsonValue[], order: Map<unknown, number>, mergeKey: string | undefined): JsonValue[] {
  const rank = (item: JsonValue): number => order.get(identity(item, mergeKey)) ?? Number.MAX_SAFE_INTEGER;
  return items
    .map((item, index) => ({ item, index, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.item);
}

/**
 * Kubernetes' ordering of a merged list. Items named by the patch (or by `$setElementOrder`) keep
 * the patch's order; the other items keep the live order; the two runs are interleaved using
 * the live positions where both items have one. An item new to the list has no live position,
 * so it lands before the live items that follow it in the merge: `[a, b]` patched with `[c]`
 * gives `[c, a, b]`, which is what kubectl users see from a real cluster.
 */
export function orderItems(merged: JsonValue[], patchOrder: JsonValue[], serverOrder: JsonValue[], mergeKey: string | undefined): JsonValue[] {
  const inPatch = positions(patchOrder, mergeKey);
  const patchItems: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const item of merged) {
    (inPatch.has(identity(item, mergeKey)) ? patchItems : serverOnly).push(item);
  }
  const live = positions(serverOrder, mergeKey);
  const left = sortBy(serverOnly, live, mergeKey);
  const right = sortBy(patchItems, inPatch, mergeKey);

  const result: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) {
      result.push(right[j++]);
    } else if (j >= right.length) {
      result.push(left[i++]);
    } else {
      const l = live.get(identity(left[i], mergeKey));
      const r = live.get(identity(right[j], mergeKey));
      if (l !== undefined && r !== undefined && l < r) result.push(left[i++]);
      else result.push(right[j++]);
    }
  }
  return result;
}

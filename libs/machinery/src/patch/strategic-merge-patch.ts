import type { JsonSchema } from '../json-schema';
import { cloneJson, emptyObject, hasKey, kindOf, toPlainJson } from './json-tree';
import { JsonObject, JsonValue, isJsonObject } from './json-value';
import { badRequest, invalid } from './patch-error';
import { FieldPatchMeta, ResolvedSchema, SchemaView } from './patch-schema';
import { DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, RETAIN_KEYS, SET_ELEMENT_ORDER, describeValue, directiveKey, orderItems } from './strategic-list-order';

/**
 * Applies a strategic merge patch the way Kubernetes' strategicpatch package does, with the
 * merge strategy of each field read from the kind's schema markers. Fields the schema does not
 * describe follow JSON merge patch rules (maps merge, lists replace, null deletes).
 */
export function strategicMergePatch(original: JsonObject, patch: unknown, schema: JsonSchema): JsonObject {
  if (!isJsonObject(patch)) {
    throw badRequest('a strategic merge patch must be a JSON object');
  }
  const view = new SchemaView(schema);
  const merger = new StrategicMerger(view);
  const target = cloneJson(original, 'the object') as JsonObject;
  const result = merger.mergeMap(target, cloneJson(patch, 'the strategic merge patch') as JsonObject, view.root());
  return toPlainJson(result) as JsonObject;
}

class StrategicMerger {
  constructor(private readonly view: SchemaView) {}

  /** Merges `patch` into `original`; both are working copies and may be consumed. */
  mergeMap(original: JsonObject, patch: JsonObject, node: ResolvedSchema | undefined): JsonObject {
    if (hasKey(patch, DIRECTIVE)) {
      const directive = patch[DIRECTIVE];
      delete patch[DIRECTIVE];
      switch (directive) {
        case 'delete':
          return emptyObject();
        case 'replace':
          return this.mergeMap(emptyObject(), patch, node);
        case 'merge':
          break;
        default:
          throw badRequest(`unknown ${DIRECTIVE} directive ${describeValue(directive)} in a map`);
      }
    }
    this.applyRetainKeys(original, patch);
    this.applySetElementOrder(original, patch, node);

    for (const patchKey of Object.keys(patch)) {
      const value = patch[patchKey];
      const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
      const key = isDeleteList ? directiveKey(patchKey, DELETE_FROM_PRIMITIVE_LIST) : patchKey;
      const meta = this.view.field(node, key);
      if (isDeleteList) {
        if (!Array.isArray(value)) throw badRequest(`${patchKey} must be a list of the values to delete`);
        const current = hasKey(original, key) ? original[key] : undefined;
        if (Array.isArray(current)) original[key] = deleteFromPrimitiveList(current, value, key);
        continue;
      }
      if (value === null) {
        delete original[key];
        continue;
      }
      const current = hasKey(original, key) ? original[key] : undefined;
      if (current === undefined || kindOf(current) !== kindOf(value)) {
        this.setFresh(original, key, value, meta);
      } else if (isJsonObject(current)) {
        original[key] =
          meta.strategy === 'replace' ? this.mergeMap(emptyObject(), value as JsonObject, meta.node) : this.mergeMap(current, value as JsonObject, meta.node);
      } else if (Array.isArray(current)) {
        original[key] = meta.strategy === 'merge' ? this.mergeList(current, value as JsonValue[], meta) : this.freshList(value as JsonValue[], meta);
      } else {
        original[key] = value;
      }
    }
    return original;
  }

  /** A value for a field the original lacks: directives are resolved and nulls dropped. */
  private setFresh(target: JsonObject, key: string, value: JsonValue, meta: FieldPatchMeta): void {
    if (isJsonObject(value)) {
      if (value[DIRECTIVE] === 'delete') {
        delete target[key];
        return;
      }
      target[key] = this.mergeMap(emptyObject(), value, meta.node);
    } else if (Array.isArray(value)) {
      target[key] = meta.strategy === 'merge' ? this.mergeList([], value, meta) : this.freshList(value, meta);
    } else {
      target[key] = value;
    }
  }

  private freshList(list: JsonValue[], meta: FieldPatchMeta): JsonValue[] {
    const element = this.view.element(meta);
    return list.map((item) => (isJsonObject(item) ? this.mergeMap(emptyObject(), item, element) : item));
  }

  private mergeList(original: JsonValue[], patch: JsonValue[], meta: FieldPatchMeta): JsonValue[] {
    if (original.length === 0 && patch.length === 0) return original;
    if (elementKind(original, patch) === 'scalar') {
      const merged = unique([...original, ...patch]);
      return orderItems(merged, patch, original, undefined);
    }
    const mergeKey = meta.mergeKey;
    if (!mergeKey) {
      throw badRequest('cannot merge a list of objects: the schema declares no merge key for it');
    }
    const element = this.view.element(meta);
    // Keys looked up in maps, not by scanning the list per patch item: a patch of n items on a list
    // of m would otherwise cost n * m.
    const doomed = new Set<JsonValue>();
    const regular: JsonObject[] = [];
    let replace = false;
    for (const item of patch as JsonObject[]) {
      if (!hasKey(item, DIRECTIVE)) {
        regular.push(item);
        continue;
      }
      const directive = item[DIRECTIVE];
      if (directive === 'delete') {
        if (!hasKey(item, mergeKey)) {
          throw badRequest(`a list element with ${DIRECTIVE}: delete must carry the merge key "${mergeKey}": ${describeValue(item)}`);
        }
        doomed.add(item[mergeKey]);
      } else if (directive === 'replace') {
        replace = true;
      } else if (directive === 'merge') {
        // Merging is what a keyed list does anyway; an element that also names an item merges it.
        delete item[DIRECTIVE];
        if (hasKey(item, mergeKey)) regular.push(item);
      } else {
        throw badRequest(`unknown ${DIRECTIVE} directive ${describeValue(directive)} in a list element`);
      }
    }
    if (replace) {
      return regular.map((item) => this.mergeMap(emptyObject(), item, element));
    }
    const base = doomed.size === 0 ? original : original.filter((entry) => !(isJsonObject(entry) && hasKey(entry, mergeKey) && doomed.has(entry[mergeKey])));
    const serverOrder = base;
    const merged = base.slice();
    const positions = new Map<JsonValue, number>();
    merged.forEach((entry, index) => {
      if (isJsonObject(entry) && hasKey(entry, mergeKey) && !positions.has(entry[mergeKey])) positions.set(entry[mergeKey], index);
    });
    for (const item of regular) {
      if (!hasKey(item, mergeKey)) {
        throw badRequest(`a list element does not contain the declared merge key "${mergeKey}": ${describeValue(item)}`);
      }
      const index = positions.get(item[mergeKey]);
      if (index !== undefined) {
        merged[index] = this.mergeMap(merged[index] as JsonObject, item, element);
      } else {
        positions.set(item[mergeKey], merged.length);
        merged.push(this.mergeMap(emptyObject(), item, element));
      }
    }
    return orderItems(merged, regular, serverOrder, mergeKey);
  }

  private applyRetainKeys(original: JsonObject, patch: JsonObject): void {
    if (!hasKey(patch, RETAIN_KEYS)) return;
    const list = patch[RETAIN_KEYS];
    delete patch[RETAIN_KEYS];
    if (!Array.isArray(list) || !list.every((name) => typeof name === 'string')) {
      throw badRequest(`${RETAIN_KEYS} must be a list of field names`);
    }
    const retained = new Set(list);
    for (const key of Object.keys(patch)) {
      if (patch[key] === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
      if (!retained.has(key)) {
        throw invalid(`the patch sets field "${key}", which its ${RETAIN_KEYS} list does not name`);
      }
    }
    for (const key of Object.keys(original)) {
      if (!retained.has(key)) delete original[key];
    }
  }

  /**
   * Merges every list that carries a `$setElementOrder/<field>` list, then orders it: the order
   * list first, then the patch list, then the live list, as Kubernetes does.
   */
  private applySetElementOrder(original: JsonObject, patch: JsonObject, node: ResolvedSchema | undefined): void {
    for (const patchKey of Object.keys(patch)) {
      if (!patchKey.startsWith(SET_ELEMENT_ORDER)) continue;
      const order = patch[patchKey];
      delete patch[patchKey];
      if (!Array.isArray(order)) throw badRequest(`${patchKey} must be a list`);
      const key = directiveKey(patchKey, SET_ELEMENT_ORDER);
      const meta = this.view.field(node, key);
      const live = hasKey(original, key) ? original[key] : undefined;
      const change = hasKey(patch, key) ? patch[key] : undefined;
      if (live !== undefined && !Array.isArray(live)) {
        throw badRequest(`${patchKey} orders field "${key}", which is not a list in the object`);
      }
      if (change !== undefined && !Array.isArray(change)) {
        throw badRequest(`${patchKey} orders field "${key}", which is not a list in the patch`);
      }
      const liveList = live ?? [];
      const mergeKey = elementKind(liveList, change ?? [], order) === 'object' ? meta.mergeKey : undefined;
      if (mergeKey === undefined && [...liveList, ...(change ?? []), ...order].some(isJsonObject)) {
        throw badRequest(`cannot order field "${key}": the schema declares no merge key for it`);
      }
      checkOrderMatchesPatch(change ?? [], order, mergeKey, patchKey);
      let merged: JsonValue[];
      if (change === undefined) {
        if (live === undefined) continue;
        merged = liveList;
      } else if (live === undefined) {
        merged = meta.strategy === 'merge' ? this.mergeList([], change, meta) : this.freshList(change, meta);
      } else {
        merged = meta.strategy === 'merge' ? this.mergeList(liveList, change, meta) : this.freshList(change, meta);
      }
      original[key] = orderItems(merged, order, liveList, mergeKey);
      delete patch[key];
    }
  }
}

function deleteFromPrimitiveList(current: JsonValue[], toDelete: JsonValue[], key: string): JsonValue[] {
  if ([...current, ...toDelete].some((item) => isJsonObject(item) || Array.isArray(item))) {
    throw badRequest(`${DELETE_FROM_PRIMITIVE_LIST}/${key} applies only to lists of primitive values`);
  }
  const doomed = new Set(toDelete);
  return current.filter((item) => !doomed.has(item));
}

function unique(items: JsonValue[]): JsonValue[] {
  return [...new Set(items)];
}

/** Lists of lists cannot be merged, and a merged list holds values of one JSON type. */
function elementKind(...lists: JsonValue[][]): 'object' | 'scalar' {
  let kind: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const itemKind = kindOf(item);
      if (itemKind === 'array') throw invalid('cannot merge lists of lists');
      if (kind === undefined) kind = itemKind;
      else if (kind !== itemKind) {
        throw badRequest(`cannot merge a list whose elements are of different types (${kind} and ${itemKind})`);
      }
    }
  }
  return kind === 'object' ? 'object' : 'scalar';
}

function checkOrderMatchesPatch(patchList: JsonValue[], order: JsonValue[], mergeKey: string | undefined, orderKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = patchList.filter((item) => !(isJsonObject(item) && hasKey(item, DIRECTIVE)));
  const keyOf = (item: JsonValue, where: string): JsonValue => {
    if (mergeKey === undefined) return item;
    if (!isJsonObject(item) || !hasKey(item, mergeKey)) {
      throw badRequest(`an element of ${where} does not contain the merge key "${mergeKey}": ${describeValue(item)}`);
    }
    return item[mergeKey];
  };
  let patchIndex = 0;
  let orderIndex = 0;
  while (patchIndex < items.length && orderIndex < order.length) {
    if (keyOf(items[patchIndex], 'the patch list') === keyOf(order[orderIndex], orderKey)) patchIndex++;
    orderIndex++;
  }
  if (patchIndex < items.length) {
    throw badRequest(`the order of the patch list does not match the ${orderKey} list`);
  }
}

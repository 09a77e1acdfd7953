import type { JsonSchema } from '../json-schema';
import { cloneJson, emptyObject, hasKey, jsonEqual, kindOf, toPlainJson } from './json-tree';
import { JsonObject, JsonValue, isJsonObject } from './json-value';
import { badRequest, invalid } from './patch-error';
import { FieldPatchMeta, ResolvedSchema, SchemaView } from './patch-schema';
import { DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, RETAIN_KEYS, SET_ELEMENT_ORDER, describeValue } from './strategic-list-order';

/**
 * The two-way strategic merge patch that turns `original` into `modified` (what `kubectl edit`
 * sends): keyed lists carry only changed elements, `$patch: delete` entries and a
 * `$setElementOrder` list; primitive merge lists carry additions and a
 * `$deleteFromPrimitiveList` list; `$retainKeys` is built for fields with that strategy.
 */
export function createStrategicMergePatch(original: JsonObject, modified: JsonObject, schema: JsonSchema): JsonObject {
  const view = new SchemaView(schema);
  const from = cloneJson(original, 'the original object') as JsonObject;
  const to = cloneJson(modified, 'the modified object') as JsonObject;
  return toPlainJson(new StrategicDiffer(view).diffMaps(from, to, view.root(), false)) as JsonObject;
}

class StrategicDiffer {
  constructor(private readonly view: SchemaView) {}

  diffMaps(original: JsonObject, modified: JsonObject, node: ResolvedSchema | undefined, buildRetainKeys: boolean): JsonObject {
    const patch = emptyObject();
    const retained: string[] = [];
    for (const key of Object.keys(modified)) {
      const after = modified[key];
      if (buildRetainKeys && after !== null) retained.push(key);
      if (!hasKey(original, key)) {
        patch[key] = after;
        continue;
      }
      const before = original[key];
      if (key === DIRECTIVE) {
        if (before !== after) patch[key] = after;
        continue;
      }
      if (kindOf(before) !== kindOf(after)) {
        patch[key] = after;
        continue;
      }
      const meta = this.view.field(node, key);
      if (isJsonObject(before)) {
        if (meta.strategy === 'replace') {
          if (!jsonEqual(before, after)) patch[key] = after;
        } else {
          const nested = this.diffMaps(before, after as JsonObject, meta.node, meta.retainKeys);
          if (Object.keys(nested).length > 0) patch[key] = nested;
        }
      } else if (Array.isArray(before)) {
        if (meta.strategy === 'merge') this.diffList(key, before, after as JsonValue[], meta, patch);
        else if (!jsonEqual(before, after)) patch[key] = after;
      } else if (before !== after) {
        patch[key] = after;
      }
    }
    for (const key of Object.keys(original)) {
      if (!hasKey(modified, key)) patch[key] = null;
    }
    const extraLiveField = Object.keys(original).some((key) => original[key] !== null && !hasKey(modified, key));
    if (retained.length > 0 && (Object.keys(patch).length > 0 || extraLiveField)) {
      patch[RETAIN_KEYS] = retained.sort();
    }
    return patch;
  }

  private diffList(key: string, before: JsonValue[], after: JsonValue[], meta: FieldPatchMeta, patch: JsonObject): void {
    if (before.length === 0) {
      if (after.length > 0) patch[key] = after;
      return;
    }
    const all = [...before, ...after];
    if (all.some(Array.isArray)) throw invalid('cannot merge lists of lists');
    if (!all.some(isJsonObject)) {
      const beforeSet = new Set(before);
      const afterSet = new Set(after);
      const additions = [...new Set(after.filter((item) => !beforeSet.has(item)))];
      const deletions = [...new Set(before.filter((item) => !afterSet.has(item)))];
      if (additions.length > 0) patch[key] = additions;
      if (deletions.length > 0) patch[`${DELETE_FROM_PRIMITIVE_LIST}/${key}`] = deletions;
      if (after.length > 0 && (deletions.length > 0 || !jsonEqual(before, after))) {
        patch[`${SET_ELEMENT_ORDER}/${key}`] = after;
      }
      return;
    }
    const mergeKey = meta.mergeKey;
    if (!mergeKey) throw badRequest(`cannot diff list "${key}": the schema declares no merge key for it`);
    const keyOf = (item: JsonValue): JsonValue => {
      if (!isJsonObject(item) || !hasKey(item, mergeKey)) {
        throw badRequest(`an element of list "${key}" does not contain the merge key "${mergeKey}": ${describeValue(item)}`);
      }
      return item[mergeKey];
    };
    const element = this.view.element(meta);
    const beforeByKey = new Map<JsonValue, JsonObject>();
    for (const item of before) if (!beforeByKey.has(keyOf(item))) beforeByKey.set(keyOf(item), item as JsonObject);
    const afterKeys = new Set(after.map(keyOf));

    const changes: JsonValue[] = [];
    for (const item of after as JsonObject[]) {
      const previous = beforeByKey.get(keyOf(item));
      if (!previous) {
        changes.push(item);
        continue;
      }
      const nested = this.diffMaps(previous, item, element, meta.retainKeys);
      if (Object.keys(nested).length > 0) {
        nested[mergeKey] = keyOf(item);
        changes.push(nested);
      }
    }
    for (const item of before) {
      if (!afterKeys.has(keyOf(item))) {
        const deletion = emptyObject();
        deletion[mergeKey] = keyOf(item);
        deletion[DIRECTIVE] = 'delete';
        changes.push(deletion);
      }
    }
    const sameOrder = before.length === after.length && before.every((item, index) => keyOf(item) === keyOf(after[index]));
    if (changes.length > 0) patch[key] = changes;
    if (after.length > 0 && (changes.length > 0 || !sameOrder)) {
      patch[`${SET_ELEMENT_ORDER}/${key}`] = after.map((item) => {
        const entry = emptyObject();
        entry[mergeKey] = keyOf(item);
        return entry;
      });
    }
  }
}

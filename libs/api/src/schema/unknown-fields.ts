import { joinField, joinIndex, joinKey } from './field-path';
import type { JsonSchema } from './json-schema';
import { arrayItems, objectChild } from './schema-walk';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Walks `value` along `schema` and reports (and, with `remove`, deletes) every field the schema
 * does not declare. Maps (`additionalProperties`) and `x-svc-preserve-unknown-fields` subtrees
 * keep their keys; declared fields inside them are still checked.
 */
export function walkUnknownFields(value: unknown, schema: JsonSchema | undefined, remove: boolean): string[] {
  const found: string[] = [];
  const visit = (v: unknown, node: JsonSchema | undefined, path: string) => {
    if (!node) return;
    if (Array.isArray(v)) {
      const items = arrayItems(node);
      if (items) v.forEach((item, i) => visit(item, items, joinIndex(path, i)));
      return;
    }
    if (!isObject(v)) return;
    for (const key of Object.keys(v)) {
      const child = objectChild(node, key);
      switch (child.kind) {
        case 'property':
          visit(v[key], child.schema, joinField(path, key));
          break;
        case 'map':
          // A map of scalars (a ConfigMap's data) has nothing below it to check: no path is built.
          if (typeof v[key] === 'object' && v[key] !== null) visit(v[key], child.schema, joinKey(path, key));
          break;
        case 'preserved':
          break;
        case 'unknown':
          found.push(joinField(path, key));
          if (remove) delete v[key];
          break;
      }
    }
  };
  visit(value, schema, '');
  return found;
}

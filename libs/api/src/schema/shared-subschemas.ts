import type Ajv from 'ajv';
import { Kind } from '@sinclair/typebox';
import type { JsonSchema } from './json-schema';

/**
 * Kinds are written by composing TypeBox constants, so one object (Container, Probe,
 * ObjectMeta, ...) appears many times in a schema and across kinds. Compiling the inlined tree
 * would generate code for each occurrence (the Pod validator alone would be ~800 KB); instead
 * each struct that occurs more than once is compiled once, as a `$ref`'d schema of the ajv
 * instance, and shared by every kind. Every struct declared in TypeBox (a finite set) is
 * compiled that way; a CRD's own nodes are parsed JSON and stay inline unless repeated, so
 * replaced CRD schemas leave nothing behind. The schema handed to consumers stays `$ref`-free.
 */

const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependencies'] as const;
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'items'] as const;
const SCHEMA_SINGLES = ['additionalProperties', 'items', 'not', 'propertyNames', 'if', 'then', 'else', 'contains', 'additionalItems'] as const;

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function children(node: JsonSchema): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (isSchemaObject(map)) for (const v of Object.values(map)) if (isSchemaObject(v)) out.push(v);
  }
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) for (const v of list) if (isSchemaObject(v)) out.push(v);
  }
  for (const key of SCHEMA_SINGLES) {
    const v = node[key];
    if (isSchemaObject(v)) out.push(v);
  }
  return out;
}

function isStruct(node: JsonSchema): boolean {
  return isSchemaObject(node.properties) && Object.keys(node.properties).length > 0;
}

function count(node: JsonSchema, counts: Map<JsonSchema, number>): void {
  const seen = counts.get(node) ?? 0;
  counts.set(node, seen + 1);
  if (seen === 0) for (const child of children(node)) count(child, counts);
}

export class SharedSubschemas {
  private readonly ids = new WeakMap<JsonSchema, string>();
  private next = 0;

  constructor(private readonly ajv: Ajv) {}

  /** A copy of `schema` whose shared structs are `$ref`s to schemas registered in the ajv instance. */
  prepare(schema: JsonSchema): JsonSchema {
    const counts = new Map<JsonSchema, number>();
    count(schema, counts);
    return this.rewrite(schema, counts, true);
  }

  private rewrite(node: JsonSchema, counts: Map<JsonSchema, number>, root: boolean): JsonSchema {
    const shareable = Kind in node || (counts.get(node) ?? 0) > 1 || this.ids.has(node);
    if (!root && isStruct(node) && shareable) {
      let id = this.ids.get(node);
      if (!id) {
        id = `urn:svc:schema:${this.next++}`;
        // Registered before rewriting its children so that a cycle would end at this ref.
        this.ids.set(node, id);
        this.ajv.addSchema(this.copy(node, counts), id);
      }
      // useDefaults reads `default` from the property's own node, so it stays beside the ref.
      return node.default === undefined ? { $ref: id } : { $ref: id, default: node.default };
    }
    return this.copy(node, counts);
  }

  private copy(node: JsonSchema, counts: Map<JsonSchema, number>): JsonSchema {
    const out: JsonSchema = { ...node };
    for (const key of SCHEMA_MAPS) {
      const map = node[key];
      if (isSchemaObject(map)) {
        out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, isSchemaObject(v) ? this.rewrite(v, counts, false) : v])) as Record<
          string,
          JsonSchema
        >;
      }
    }
    for (const key of SCHEMA_LISTS) {
      const list = node[key];
      // `items` is listed for tuple forms a hand-written schema may still carry.
      if (Array.isArray(list)) (out as Record<string, unknown>)[key] = list.map((v) => (isSchemaObject(v) ? this.rewrite(v, counts, false) : v));
    }
    for (const key of SCHEMA_SINGLES) {
      const v = node[key];
      if (isSchemaObject(v)) out[key] = this.rewrite(v, counts, false);
    }
    return out;
  }
}

import type { JsonSchema } from './json-schema';

/**
 * Structural navigation of a schema, shared by unknown-field detection, pruning, defaulting,
 * error paths and (outside this library) strategic merge and apply. Value-validation branches
 * (allOf/anyOf/oneOf) contribute their properties, the way Kubernetes reads structural schemas.
 */

export type ChildKind = 'property' | 'map' | 'preserved' | 'unknown';

export interface ChildSchema {
  kind: ChildKind;
  schema?: JsonSchema;
}

const EMBEDDED_FIELDS: Record<string, JsonSchema> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  // An embedded object's metadata is kept as given; its content is checked when it is created as an object of its own.
  metadata: { type: 'object', 'x-svc-preserve-unknown-fields': true },
};

function branchesOf(node: JsonSchema): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) out.push(...list);
  }
  return out;
}

/** The node and every node reachable through allOf/anyOf/oneOf. */
export function structuralNodes(node: JsonSchema): JsonSchema[] {
  const out = [node];
  for (let i = 0; i < out.length; i++) out.push(...branchesOf(out[i]));
  return out;
}

export function preservesUnknownFields(node: JsonSchema): boolean {
  return structuralNodes(node).some((n) => n['x-svc-preserve-unknown-fields'] === true);
}

export function isEmbeddedResource(node: JsonSchema): boolean {
  return structuralNodes(node).some((n) => n['x-svc-embedded-resource'] === true);
}

/** How the field `key` of an object validated by `node` is described. */
export function objectChild(node: JsonSchema, key: string): ChildSchema {
  const nodes = structuralNodes(node);
  for (const n of nodes) {
    if (n.properties && Object.prototype.hasOwnProperty.call(n.properties, key)) {
      return { kind: 'property', schema: n.properties[key] };
    }
  }
  for (const n of nodes) {
    if (n.patternProperties) {
      for (const [pattern, s] of Object.entries(n.patternProperties)) {
        if (new RegExp(pattern, 'u').test(key)) return { kind: 'map', schema: s };
      }
    }
  }
  for (const n of nodes) {
    const ap = n.additionalProperties;
    if (ap && typeof ap === 'object') return { kind: 'map', schema: ap };
  }
  if (nodes.some((n) => n['x-svc-embedded-resource'] === true) && Object.prototype.hasOwnProperty.call(EMBEDDED_FIELDS, key)) {
    return { kind: 'property', schema: EMBEDDED_FIELDS[key] };
  }
  if (nodes.some((n) => n.additionalProperties === true || n['x-svc-preserve-unknown-fields'] === true)) {
    return { kind: 'preserved' };
  }
  return { kind: 'unknown' };
}

/** Schema of the items of a list validated by `node`. */
export function arrayItems(node: JsonSchema): JsonSchema | undefined {
  for (const n of structuralNodes(node)) {
    if (n.items && !Array.isArray(n.items)) return n.items;
  }
  return undefined;
}

/**
 * The schema at a path of field names and list indexes, or undefined where the schema says
 * nothing (preserved or unknown content).
 */
export function schemaAt(root: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = root;
  for (const seg of path) {
    if (!node) return undefined;
    node = typeof seg === 'number' ? arrayItems(node) : objectChild(node, seg).schema;
  }
  return node;
}

/** Throws when the schema uses `$ref`: schemas are inlined so that every consumer can walk them. */
export function assertNoRefs(node: unknown, path = '$'): void {
  if (Array.isArray(node)) {
    node.forEach((n, i) => assertNoRefs(n, `${path}[${i}]`));
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref') throw new Error(`${path}: $ref is not supported; inline the referenced schema`);
    // `default`, `enum` and `example` hold data, not schemas.
    if (k === 'default' || k === 'enum' || k === 'example' || k === 'const') continue;
    assertNoRefs(v, `${path}.${k}`);
  }
}

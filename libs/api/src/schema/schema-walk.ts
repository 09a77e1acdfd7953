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

interface NodeInfo {
  properties: Map<string, JsonSchema>;
  patterns: [RegExp, JsonSchema][];
  additional?: JsonSchema;
  embedded: boolean;
  preserved: boolean;
  items?: JsonSchema;
}

// Walks run per request over the same schema objects; their structural facts are computed once.
const infos = new WeakMap<JsonSchema, NodeInfo>();

function infoOf(node: JsonSchema): NodeInfo {
  let info = infos.get(node);
  if (info) return info;
  const nodes = structuralNodes(node);
  info = { properties: new Map(), patterns: [], embedded: false, preserved: false };
  for (const n of nodes) {
    for (const [k, v] of Object.entries(n.properties ?? {})) if (!info.properties.has(k)) info.properties.set(k, v);
    for (const [p, v] of Object.entries(n.patternProperties ?? {})) info.patterns.push([new RegExp(p, 'u'), v]);
    const ap = n.additionalProperties;
    if (ap && typeof ap === 'object') info.additional ??= ap;
    if (ap === true || n['x-svc-preserve-unknown-fields'] === true) info.preserved = true;
    if (n['x-svc-embedded-resource'] === true) info.embedded = true;
    if (n.items && !Array.isArray(n.items)) info.items ??= n.items;
  }
  infos.set(node, info);
  return info;
}

/** How the field `key` of an object validated by `node` is described. */
export function objectChild(node: JsonSchema, key: string): ChildSchema {
  const info = infoOf(node);
  const prop = info.properties.get(key);
  if (prop) return { kind: 'property', schema: prop };
  for (const [re, schema] of info.patterns) if (re.test(key)) return { kind: 'map', schema };
  if (info.additional) return { kind: 'map', schema: info.additional };
  if (info.embedded && Object.prototype.hasOwnProperty.call(EMBEDDED_FIELDS, key)) return { kind: 'property', schema: EMBEDDED_FIELDS[key] };
  if (info.preserved) return { kind: 'preserved' };
  return { kind: 'unknown' };
}

/** Schema of the items of a list validated by `node`. */
export function arrayItems(node: JsonSchema): JsonSchema | undefined {
  return infoOf(node).items;
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

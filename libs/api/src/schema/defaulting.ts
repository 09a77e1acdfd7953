import type { JsonSchema } from './json-schema';
import { arrayItems, objectChild, structuralNodes } from './schema-walk';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNullable(node: JsonSchema | undefined): boolean {
  if (!node) return true;
  return structuralNodes(node).some((n) => n.nullable === true || (Array.isArray(n.type) && n.type.includes('null')) || n.type === 'null');
}

/**
 * Removes `null` values of fields that are not nullable, before defaulting: `"creationTimestamp": null`
 * (as `kubectl create --dry-run -o yaml` writes it) means "unset" to Kubernetes' decoder, and a
 * CRD field without `nullable: true` is pruned the same way so its default can apply.
 */
export function dropNulls(value: unknown, schema: JsonSchema | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    const items = arrayItems(schema);
    if (items) value.forEach((item) => dropNulls(item, items));
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    const child = objectChild(schema, key);
    if (child.kind === 'preserved' || child.kind === 'unknown') continue;
    if (value[key] === null) {
      if (!isNullable(child.schema)) delete value[key];
      continue;
    }
    dropNulls(value[key], child.schema);
  }
}

const skeletons = new WeakMap<JsonSchema, JsonSchema | null>();

/**
 * The part of a schema that leads to `default` keywords, with every validation keyword left
 * out: what ajv's useDefaults needs to fill defaults, at a fraction of the compile cost of the
 * whole schema. Memoized per node, so shared structs keep one skeleton (and one compiled function).
 */
export function defaultsSkeleton(node: JsonSchema): JsonSchema | undefined {
  const cached = skeletons.get(node);
  if (cached !== undefined) return cached ?? undefined;
  skeletons.set(node, null); // a cycle contributes nothing
  const out: JsonSchema = {};
  let useful = false;
  if (node.properties) {
    const props: Record<string, JsonSchema> = {};
    for (const [key, child] of Object.entries(node.properties)) {
      const s = child && typeof child === 'object' ? defaultsSkeleton(child) : undefined;
      if (s) props[key] = s;
    }
    if (Object.keys(props).length) {
      out.properties = props;
      useful = true;
    }
  }
  if (node.items && !Array.isArray(node.items)) {
    const s = defaultsSkeleton(node.items);
    if (s) {
      out.items = s;
      useful = true;
    }
  }
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    const s = defaultsSkeleton(node.additionalProperties);
    if (s) {
      out.additionalProperties = s;
      useful = true;
    }
  }
  const branches = (node.allOf ?? []).map(defaultsSkeleton).filter((s): s is JsonSchema => !!s);
  if (branches.length) {
    out.allOf = branches;
    useful = true;
  }
  if (node.default !== undefined) {
    out.default = node.default;
    useful = true;
  }
  const result = useful ? out : undefined;
  if (result) {
    // Keep TypeBox's marker so that the compiler shares this skeleton across kinds as it does the struct.
    for (const sym of Object.getOwnPropertySymbols(node)) (result as Record<symbol, unknown>)[sym] = (node as Record<symbol, unknown>)[sym];
  }
  skeletons.set(node, result ?? null);
  return result;
}

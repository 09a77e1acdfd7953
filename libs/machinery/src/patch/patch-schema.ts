import type { JsonSchema } from '../json-schema';

/** A schema node with $ref, allOf, anyOf and oneOf folded in: what patching needs to know. */
export interface ResolvedSchema {
  readonly properties: ReadonlyMap<string, JsonSchema>;
  readonly additionalProperties: JsonSchema | undefined;
  readonly items: JsonSchema | undefined;
  readonly isList: boolean;
  readonly patchStrategy: string | undefined;
  readonly mergeKey: string | undefined;
  readonly listType: string | undefined;
  readonly listMapKeys: readonly string[] | undefined;
  readonly mapType: string | undefined;
}

/** How one field is patched; `node` is undefined where the schema says nothing (merge-patch rules). */
export interface FieldPatchMeta {
  readonly node: ResolvedSchema | undefined;
  readonly strategy: 'merge' | 'replace' | undefined;
  readonly retainKeys: boolean;
  readonly mergeKey: string | undefined;
}

const NO_META: FieldPatchMeta = { node: undefined, strategy: undefined, retainKeys: false, mergeKey: undefined };
const MAX_DEPTH = 64;

export class SchemaView {
  private readonly cache = new WeakMap<JsonSchema, ResolvedSchema | null>();

  constructor(private readonly rootSchema: JsonSchema) {}

  root(): ResolvedSchema | undefined {
    return this.resolve(this.rootSchema);
  }

  resolve(schema: JsonSchema | undefined): ResolvedSchema | undefined {
    if (!schema || typeof schema !== 'object') return undefined;
    const cached = this.cache.get(schema);
    if (cached !== undefined) return cached ?? undefined;
    const resolved = this.flatten(schema);
    this.cache.set(schema, resolved ?? null);
    return resolved;
  }

  /** The patch metadata of field `key` of an object node. */
  field(parent: ResolvedSchema | undefined, key: string): FieldPatchMeta {
    if (!parent) return NO_META;
    const child = parent.properties.get(key) ?? parent.additionalProperties;
    const node = this.resolve(child);
    return node ? metaOf(node) : NO_META;
  }

  /** The schema of the elements of a list field. */
  element(meta: FieldPatchMeta): ResolvedSchema | undefined {
    return this.resolve(meta.node?.items);
  }

  private flatten(schema: JsonSchema): ResolvedSchema | undefined {
    const properties = new Map<string, JsonSchema>();
    const found: Partial<Record<keyof ResolvedSchema, unknown>> = {};
    let isList = false;
    let scalar = false;
    const seen = new Set<JsonSchema>();

    const visit = (node: JsonSchema | undefined, depth: number): void => {
      if (!node || typeof node !== 'object' || seen.has(node) || depth > MAX_DEPTH) return;
      seen.add(node);
      if (node['x-svc-int-or-string'] === true) scalar = true;
      const type = node.type;
      if (type === 'array' || (Array.isArray(type) && type.includes('array')) || node.items) isList = true;
      if (node.properties) {
        for (const [name, child] of Object.entries(node.properties)) {
          if (!properties.has(name)) properties.set(name, child);
        }
      }
      first(found, 'additionalProperties', isObjectSchema(node.additionalProperties) ? node.additionalProperties : undefined);
      first(found, 'items', node.items);
      first(found, 'patchStrategy', node['x-svc-patch-strategy']);
      first(found, 'mergeKey', node['x-svc-patch-merge-key']);
      first(found, 'listType', node['x-svc-list-type']);
      first(found, 'listMapKeys', node['x-svc-list-map-keys']);
      first(found, 'mapType', node['x-svc-map-type']);
      if (typeof node.$ref === 'string') visit(this.lookupRef(node.$ref), depth + 1);
      for (const branch of [...(node.allOf ?? []), ...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
        visit(branch, depth + 1);
      }
    };
    visit(schema, 0);

    // An int-or-string value is a scalar whatever its branches say.
    if (scalar) return undefined;
    return {
      properties,
      additionalProperties: found.additionalProperties as JsonSchema | undefined,
      items: found.items as JsonSchema | undefined,
      isList,
      patchStrategy: found.patchStrategy as string | undefined,
      mergeKey: found.mergeKey as string | undefined,
      listType: found.listType as string | undefined,
      listMapKeys: found.listMapKeys as string[] | undefined,
      mapType: found.mapType as string | undefined,
    };
  }

  private lookupRef(ref: string): JsonSchema | undefined {
    if (!ref.startsWith('#')) return undefined;
    let node: unknown = this.rootSchema;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!node || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, token)) return undefined;
      node = (node as Record<string, unknown>)[token];
    }
    return isObjectSchema(node) ? node : undefined;
  }
}

function first<K extends keyof ResolvedSchema>(found: Partial<Record<keyof ResolvedSchema, unknown>>, key: K, value: unknown): void {
  if (found[key] === undefined && value !== undefined) found[key] = value;
}

function isObjectSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Explicit patch markers win. Without them a list declared `x-svc-list-type: map` merges on its
 * first map key and a `set` merges as a primitive set, so a kind whose schema only carries the
 * list-type markers still patches its keyed lists the way kubectl users expect. Maps never get a
 * strategy from `x-svc-map-type`: Kubernetes merges atomic structs under strategic merge patch.
 */
function metaOf(node: ResolvedSchema): FieldPatchMeta {
  const tokens = (node.patchStrategy ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
  const retainKeys = tokens.includes('retainKeys');
  const others = tokens.filter((token) => token !== 'retainKeys');
  if (others.length > 1 || others.some((token) => token !== 'merge' && token !== 'replace')) {
    throw new Error(`unsupported x-svc-patch-strategy ${JSON.stringify(node.patchStrategy)} in a schema`);
  }
  let strategy = others[0] as 'merge' | 'replace' | undefined;
  let mergeKey = node.mergeKey;
  if (node.isList) {
    if (!strategy && (node.listType === 'map' || node.listType === 'set')) strategy = 'merge';
    if (mergeKey === undefined && node.listType === 'map') mergeKey = node.listMapKeys?.[0];
  }
  return { node, strategy, retainKeys, mergeKey };
}

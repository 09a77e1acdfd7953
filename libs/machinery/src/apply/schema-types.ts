import type { JsonSchema } from '../json-schema';
import { JsonValue, isJsonObject } from '../patch';
import { objectMetaSchema } from './object-meta-schema';

/** A scalar, or anything held whole that is not a container: `x-svc-int-or-string` values among them. */
export interface LeafNodeType {
  readonly kind: 'leaf';
  readonly nullable: boolean;
}

/** No schema: the shape is deduced from the value (maps granular, lists atomic). */
export interface UntypedNodeType {
  readonly kind: 'untyped';
}

/** A struct (declared properties) or a map (additionalProperties), or both. */
export interface MapNodeType {
  readonly kind: 'map';
  readonly atomic: boolean;
  readonly nullable: boolean;
  /** The type of declared field `name`; undefined when the field is not declared. */
  declared(name: string): NodeType | undefined;
  /** The type of keys that are not declared fields. */
  readonly elements: NodeType;
}

export type ListRelation = 'atomic' | 'set' | 'map';

export interface ListNodeType {
  readonly kind: 'list';
  readonly relation: ListRelation;
  /** The key fields of an associative (`map`) list. */
  readonly keys: readonly string[];
  readonly nullable: boolean;
  readonly item: NodeType;
  /** The schema default of key field `name` of the items, used when an item omits it. */
  keyDefault(name: string): JsonValue | undefined;
}

export type NodeType = LeafNodeType | UntypedNodeType | MapNodeType | ListNodeType;

/** How a value is walked: held whole, or merged item by item. */
export type Shape = { readonly kind: 'leaf' } | { readonly kind: 'map'; readonly type: MapNodeType } | { readonly kind: 'list'; readonly type: ListNodeType };

export const LEAF: LeafNodeType = { kind: 'leaf', nullable: false };
export const UNTYPED: UntypedNodeType = { kind: 'untyped' };
const UNTYPED_MAP: MapNodeType = { kind: 'map', atomic: false, nullable: true, declared: () => undefined, elements: UNTYPED };
const LEAF_SHAPE: Shape = { kind: 'leaf' };

/** The shape of `value` under `type`; a value that does not fit its type is held whole. */
export function shapeOf(type: NodeType, value: JsonValue | undefined): Shape {
  if (isJsonObject(value)) {
    if (type.kind === 'untyped') return { kind: 'map', type: UNTYPED_MAP };
    if (type.kind === 'map' && !type.atomic) return { kind: 'map', type };
    return LEAF_SHAPE;
  }
  if (Array.isArray(value) && type.kind === 'list' && type.relation !== 'atomic') return { kind: 'list', type };
  return LEAF_SHAPE;
}

/** Whether a null in this place stands for an empty granular container rather than a leaf value. */
export function isGranularContainer(type: NodeType): boolean {
  return (type.kind === 'map' && !type.atomic) || (type.kind === 'list' && type.relation !== 'atomic');
}

/** The type of field `name` of a map: its declaration, or the type of undeclared keys. */
export function fieldType(map: MapNodeType, name: string): { type: NodeType; declared: boolean } {
  const declared = map.declared(name);
  return declared ? { type: declared, declared: true } : { type: map.elements, declared: false };
}

interface Flat {
  types: Set<string>;
  properties: Map<string, JsonSchema>;
  additionalProperties: JsonSchema | boolean | undefined;
  items: JsonSchema | undefined;
  listType: unknown;
  listMapKeys: unknown;
  mapType: unknown;
  patchStrategy: unknown;
  mergeKey: unknown;
  intOrString: boolean;
  preserveUnknown: boolean;
  embedded: boolean;
  nullable: boolean;
  default: JsonValue | undefined;
}

const MAX_DEPTH = 64;

/**
 * Reads a kind's JSON Schema as structured-merge-diff types: `$ref` (local), `allOf`, `anyOf`
 * and `oneOf` are folded together, the `x-svc-*` markers pick merge strategies, and anything the
 * schema does not describe is deduced from the value. Types are built lazily and cached per
 * schema node, so recursive schemas are fine.
 */
export class SchemaTypes {
  private readonly cache = new WeakMap<JsonSchema, NodeType>();
  private readonly rootType: MapNodeType;

  constructor(private readonly rootSchema: JsonSchema | undefined) {
    const root = rootSchema ? this.typeOf(rootSchema) : UNTYPED;
    const base: MapNodeType = root.kind === 'map' ? root : UNTYPED_MAP;
    const meta = this.typeOf(objectMetaSchema) as MapNodeType;
    // Every kind has ObjectMeta; a schema that declares metadata loosely still gets its markers.
    this.rootType = overlay(base, (name) => (name === 'metadata' ? withFallback(base.declared(name), meta) : base.declared(name)));
  }

  root(): MapNodeType {
    return this.rootType;
  }

  typeOf(schema: JsonSchema | undefined): NodeType {
    if (!schema || typeof schema !== 'object') return UNTYPED;
    const cached = this.cache.get(schema);
    if (cached) return cached;
    const type = this.build(this.flatten(schema));
    this.cache.set(schema, type);
    return type;
  }

  private build(flat: Flat): NodeType {
    if (flat.intOrString) return { kind: 'leaf', nullable: flat.nullable };
    const isList = flat.types.has('array') || flat.items !== undefined;
    if (isList) return this.buildList(flat);
    const isObject = flat.types.has('object') || flat.properties.size > 0 || flat.additionalProperties !== undefined || flat.preserveUnknown || flat.embedded;
    if (isObject) return this.buildMap(flat);
    const scalar = [...flat.types].some((t) => t !== 'null');
    return scalar ? { kind: 'leaf', nullable: flat.nullable || flat.types.has('null') } : UNTYPED;
  }

  private buildList(flat: Flat): ListNodeType {
    const itemSchema = flat.items;
    const itemFlat = itemSchema ? this.flatten(itemSchema) : undefined;
    let relation: ListRelation = 'atomic';
    let keys: string[] = [];
    const declaredKeys = Array.isArray(flat.listMapKeys) ? flat.listMapKeys.filter((k): k is string => typeof k === 'string') : [];
    if (flat.listType === 'atomic' || flat.listType === 'set' || flat.listType === 'map') {
      relation = flat.listType;
      if (relation === 'map') {
        keys = declaredKeys.length > 0 ? declaredKeys : typeof flat.mergeKey === 'string' ? [flat.mergeKey] : [];
        if (keys.length === 0) relation = 'atomic';
      }
    } else if (typeof flat.patchStrategy === 'string' && flat.patchStrategy.split(',')[0].trim() === 'merge') {
      // Without a list type, Kubernetes reads a merge strategy as a keyed list, or a set of scalars.
      if (typeof flat.mergeKey === 'string') {
        relation = 'map';
        keys = [flat.mergeKey];
      } else {
        relation = 'set';
      }
    }
    const types = this;
    let item: NodeType | undefined;
    return {
      kind: 'list',
      relation,
      keys,
      nullable: flat.nullable,
      get item(): NodeType {
        item ??= types.typeOf(itemSchema);
        return item;
      },
      keyDefault(name: string): JsonValue | undefined {
        const field = itemFlat?.properties.get(name);
        if (!field) return undefined;
        const fieldFlat = types.flatten(field);
        return fieldFlat.default;
      },
    };
  }

  private buildMap(flat: Flat): MapNodeType {
    const types = this;
    const declaredCache = new Map<string, NodeType | undefined>();
    const additional = flat.additionalProperties;
    let elements: NodeType | undefined;
    const embeddedFields: Record<string, JsonSchema> = flat.embedded
      ? { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMetaSchema }
      : {};
    return {
      kind: 'map',
      atomic: flat.mapType === 'atomic',
      nullable: flat.nullable,
      declared(name: string): NodeType | undefined {
        if (declaredCache.has(name)) return declaredCache.get(name);
        const schema = flat.properties.get(name) ?? (Object.prototype.hasOwnProperty.call(embeddedFields, name) ? embeddedFields[name] : undefined);
        // Only declared names are remembered: the keys of a map (labels, data) come from clients, and
        // remembering each would grow this shared type with every request.
        if (schema === undefined) return undefined;
        let type = schema ? types.typeOf(schema) : undefined;
        if (type && name === 'metadata' && flat.embedded) type = withFallback(type, types.typeOf(objectMetaSchema) as MapNodeType);
        declaredCache.set(name, type);
        return type;
      },
      get elements(): NodeType {
        elements ??= typeof additional === 'object' ? types.typeOf(additional) : UNTYPED;
        return elements;
      },
    };
  }

  private flatten(schema: JsonSchema): Flat {
    const flat: Flat = {
      types: new Set(),
      properties: new Map(),
      additionalProperties: undefined,
      items: undefined,
      listType: undefined,
      listMapKeys: undefined,
      mapType: undefined,
      patchStrategy: undefined,
      mergeKey: undefined,
      intOrString: false,
      preserveUnknown: false,
      embedded: false,
      nullable: false,
      default: undefined,
    };
    const seen = new Set<JsonSchema>();
    const visit = (node: JsonSchema | undefined, depth: number): void => {
      if (!node || typeof node !== 'object' || seen.has(node) || depth > MAX_DEPTH) return;
      seen.add(node);
      const type = node.type;
      for (const t of Array.isArray(type) ? type : type === undefined ? [] : [type]) if (typeof t === 'string') flat.types.add(t);
      if (node.properties && typeof node.properties === 'object') {
        for (const [name, child] of Object.entries(node.properties)) if (!flat.properties.has(name)) flat.properties.set(name, child);
      }
      if (flat.additionalProperties === undefined || flat.additionalProperties === false) {
        const ap = node.additionalProperties;
        if (isJsonObject(ap) || ap === true) flat.additionalProperties = ap;
      }
      flat.items ??= isJsonObject(node.items) ? node.items : undefined;
      flat.listType ??= node['x-svc-list-type'];
      flat.listMapKeys ??= node['x-svc-list-map-keys'];
      flat.mapType ??= node['x-svc-map-type'];
      flat.patchStrategy ??= node['x-svc-patch-strategy'];
      flat.mergeKey ??= node['x-svc-patch-merge-key'];
      if (node['x-svc-int-or-string'] === true) flat.intOrString = true;
      if (node['x-svc-preserve-unknown-fields'] === true) flat.preserveUnknown = true;
      if (node['x-svc-embedded-resource'] === true) flat.embedded = true;
      if (node.nullable === true) flat.nullable = true;
      if (flat.default === undefined && node.default !== undefined) flat.default = node.default as JsonValue;
      if (typeof node.$ref === 'string') visit(this.lookupRef(node.$ref), depth + 1);
      for (const branch of [...(node.allOf ?? []), ...(node.anyOf ?? []), ...(node.oneOf ?? [])]) visit(branch, depth + 1);
    };
    visit(schema, 0);
    return flat;
  }

  private lookupRef(ref: string): JsonSchema | undefined {
    if (!ref.startsWith('#') || !this.rootSchema) return undefined;
    let node: unknown = this.rootSchema;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isJsonObject(node) || !Object.prototype.hasOwnProperty.call(node, token)) return undefined;
      node = (node as Record<string, unknown>)[token];
    }
    return isJsonObject(node) ? node : undefined;
  }
}

/** A declared metadata type whose undeclared ObjectMeta fields fall back to ObjectMeta's markers. */
function withFallback(declared: NodeType | undefined, meta: MapNodeType): NodeType {
  if (!declared || declared.kind !== 'map') return declared && declared.kind !== 'untyped' ? declared : meta;
  return overlay(declared, (name) => declared.declared(name) ?? meta.declared(name));
}

/** A granular copy of `base` with other field declarations; its element type stays lazy. */
function overlay(base: MapNodeType, declared: (name: string) => NodeType | undefined): MapNodeType {
  return {
    kind: 'map',
    atomic: false,
    nullable: base.nullable,
    declared,
    get elements(): NodeType {
      return base.elements;
    },
  };
}

const typesBySchema = new WeakMap<JsonSchema, SchemaTypes>();
let untypedKind: SchemaTypes | undefined;

/** The (cached) types of a kind's schema: a server applies to the same few schemas all day. */
export function schemaTypesFor(schema: JsonSchema | undefined): SchemaTypes {
  if (!schema) return (untypedKind ??= new SchemaTypes(undefined));
  let types = typesBySchema.get(schema);
  if (!types) {
    types = new SchemaTypes(schema);
    typesBySchema.set(schema, types);
  }
  return types;
}

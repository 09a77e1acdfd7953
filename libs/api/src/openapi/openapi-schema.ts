import type { JsonSchema } from '../schema/json-schema';
import { namedStructs, type NamedStruct } from './named-structs';
import { INT_OR_STRING_SCHEMA_NAME, QUANTITY_SCHEMA_NAME } from './openapi-names';
import { isRecord } from '@svc/machinery';

/**
 * The schema of a kind as an OpenAPI 3.0 document carries it. The engine's dialect is JSON Schema
 * draft 7 with `x-svc-*` markers; clients (kubectl above all) read OpenAPI 3.0 with the
 * `x-kubernetes-*` names, so every marker is written under both names and the draft-7 spellings
 * OpenAPI 3.0 does not know are turned back.
 */

/** Marker suffixes kubectl and client-go read as `x-kubernetes-<suffix>`. */
export const MIRRORED_MARKERS = [
  'list-type',
  'list-map-keys',
  'map-type',
  'patch-merge-key',
  'patch-strategy',
  'int-or-string',
  'preserve-unknown-fields',
  'embedded-resource',
] as const;

// Engine-internal keywords with no meaning to a reader of the document.
const INTERNAL_KEYWORDS = new Set(['x-svc-unique-map-keys', '$id', '$schema']);

const SCHEMA_MAPS = new Set(['properties', 'patternProperties']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
const SCHEMA_SINGLES = new Set(['items', 'additionalProperties', 'not']);

/**
 * Keywords that stay where a named struct is used because they describe the field, not the type:
 * its default and description, and how patches merge it (kubectl reads those on the field). Other
 * markers (`x-svc-map-type`, ...) belong to the type and stay there, unless the field says otherwise.
 */
const FIELD_KEYWORDS = new Set([
  'default',
  'description',
  'nullable',
  'x-svc-patch-strategy',
  'x-svc-patch-merge-key',
  'x-svc-list-type',
  'x-svc-list-map-keys',
]);

function isFieldKeyword(key: string, value: unknown, canonical: JsonSchema): boolean {
  if (FIELD_KEYWORDS.has(key)) return true;
  return key.startsWith('x-') && JSON.stringify(value) !== JSON.stringify(canonical[key]);
}

function plain<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Marker mirroring and the draft-7 to OpenAPI 3.0 rewrites, on one converted node. */
function finishNode(node: Record<string, unknown>): void {
  for (const suffix of MIRRORED_MARKERS) {
    const value = node[`x-svc-${suffix}`];
    if (value !== undefined) node[`x-kubernetes-${suffix}`] = plain(value);
  }
  // Draft 7 holds the bound in exclusiveMinimum; OpenAPI 3.0 (and Go's decoder) wants a boolean beside minimum.
  for (const [bound, limit] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof node[bound] === 'number') {
      node[limit] = node[bound];
      node[bound] = true;
    }
  }
}

/**
 * The two scalar types of built-in kinds that take more than one JSON type. OpenAPI 3.0 has no type
 * arrays (kubectl explain fails on one), so Kubernetes documents them as components with `oneOf`.
 */
export const SCALAR_COMPONENTS: Readonly<Record<string, JsonSchema>> = {
  [QUANTITY_SCHEMA_NAME]: {
    description:
      'A resource amount written as a decimal number with an optional suffix: a binary one (Ki, Mi, Gi, Ti, Pi, Ei), a decimal one (n, u, m, k, M, G, T, P, E) or an exponent (e3). `500m` CPU is half a core, `1Gi` of memory is 2^30 bytes. A plain JSON number is read the same way.',
    oneOf: [{ type: 'string' }, { type: 'number' }],
  },
  [INT_OR_STRING_SCHEMA_NAME]: {
    description:
      'A value that is either a whole number or a string; a port given as a number or by its name, a count given as a number or as a percentage such as `25%`.',
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
  },
};

/** The scalar component a built-in node stands for, if any. */
function scalarComponent(node: JsonSchema): string | undefined {
  if (Array.isArray(node.type) && node.type.length === 2 && node.type.includes('string') && node.type.includes('number')) return QUANTITY_SCHEMA_NAME;
  if (node['x-svc-int-or-string'] === true && node.type === undefined) return INT_OR_STRING_SCHEMA_NAME;
  return undefined;
}

export interface ConvertOptions {
  /**
   * A custom resource's schema: int-or-string fields keep `x-kubernetes-int-or-string`, as Kubernetes
   * publishes CRD schemas, rather than a reference to the IntOrString component.
   */
  customResource?: boolean;
}

/**
 * Converts schemas into one document: structs with a name (see named-structs) become
 * `components.schemas` entries referenced where they are used, the way Kubernetes documents
 * `DeploymentSpec` or `Container`, so that `kubectl explain` names the types it shows.
 */
export class OpenApiSchemaConverter {
  /** The named structs referenced so far, by component key. */
  readonly components: Record<string, JsonSchema> = {};

  constructor(private readonly named: ReadonlyMap<object, NamedStruct> = namedStructs()) {}

  private customResource = false;

  /** A whole schema; its own root is written out even when it is a named struct. */
  convert(schema: JsonSchema, options: ConvertOptions = {}): JsonSchema {
    const previous = this.customResource;
    this.customResource = options.customResource === true;
    try {
      return this.node(schema, true);
    } finally {
      this.customResource = previous;
    }
  }

  private node(node: JsonSchema, root: boolean): JsonSchema {
    const scalar = this.customResource ? undefined : scalarComponent(node);
    if (scalar) return this.scalarReference(scalar, node);
    const named = !root && isRecord(node.properties) ? this.named.get(node.properties) : undefined;
    if (named) return this.reference(named, node);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (INTERNAL_KEYWORDS.has(key)) continue;
      if (SCHEMA_MAPS.has(key) && isRecord(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isRecord(v) ? this.node(v as JsonSchema, false) : plain(v)]));
      } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
        out[key] = (value as unknown[]).map((v) => (isRecord(v) ? this.node(v as JsonSchema, false) : plain(v)));
      } else if (SCHEMA_SINGLES.has(key) && isRecord(value)) {
        out[key] = this.node(value, false);
      } else {
        out[key] = plain(value);
      }
    }
    finishNode(out);
    return out;
  }

  /** `$ref` to a scalar component, the field's description and default beside it. */
  private scalarReference(component: string, site: JsonSchema): JsonSchema {
    this.components[component] ??= plain(SCALAR_COMPONENTS[component]);
    const ref = { $ref: `#/components/schemas/${component}` };
    const field: Record<string, unknown> = {};
    for (const key of ['default', 'description', 'nullable'] as const) if (site[key] !== undefined) field[key] = plain(site[key]);
    return Object.keys(field).length ? { allOf: [ref], ...field } : ref;
  }

  /** `$ref` to the struct's component (made on first use), keeping the field's own keywords beside it. */
  private reference(named: NamedStruct, site: JsonSchema): JsonSchema {
    if (!this.components[named.component]) {
      // Reserve the key first: a struct reachable from itself would otherwise recurse without end.
      this.components[named.component] = {};
      this.components[named.component] = this.node(named.canonical, true);
    }
    const ref = { $ref: `#/components/schemas/${named.component}` };
    const field: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(site)) {
      if (INTERNAL_KEYWORDS.has(key) || !isFieldKeyword(key, value, named.canonical)) continue;
      // The struct's own description travels with every copy of it; it belongs to the component, not the field.
      if (key === 'description' && value === named.canonical.description) continue;
      field[key] = plain(value);
    }
    if (!Object.keys(field).length) return ref;
    finishNode(field);
    // OpenAPI 3.0 ignores a $ref's siblings, hence Kubernetes' allOf wrapping.
    return { allOf: [ref], ...field };
  }
}

/** A plain-JSON copy of `schema` in OpenAPI 3.0 form, markers under both names, every struct inline. */
export function toOpenApiSchema(schema: JsonSchema): JsonSchema {
  return new OpenApiSchemaConverter(new Map()).convert(schema);
}

import type { JsonSchema } from '../schema/json-schema';

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
const INTERNAL_KEYWORDS = ['x-svc-unique-map-keys', '$id', '$schema'];

const SCHEMA_MAPS = ['properties', 'patternProperties'] as const;
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const SCHEMA_SINGLES = ['items', 'additionalProperties', 'not'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function convertNode(node: Record<string, unknown>): void {
  for (const suffix of MIRRORED_MARKERS) {
    const value = node[`x-svc-${suffix}`];
    if (value !== undefined) node[`x-kubernetes-${suffix}`] = value;
  }
  for (const key of INTERNAL_KEYWORDS) delete node[key];
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
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (isRecord(map)) for (const child of Object.values(map)) if (isRecord(child)) convertNode(child);
  }
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) for (const child of list) if (isRecord(child)) convertNode(child);
  }
  for (const key of SCHEMA_SINGLES) {
    const child = node[key];
    if (isRecord(child)) convertNode(child);
  }
}

/** A plain-JSON copy of `schema` in OpenAPI 3.0 form, markers under both names. */
export function toOpenApiSchema(schema: JsonSchema): JsonSchema {
  // TypeBox keeps symbol-keyed metadata on its schemas; the copy carries JSON only.
  const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema;
  convertNode(copy);
  return copy;
}

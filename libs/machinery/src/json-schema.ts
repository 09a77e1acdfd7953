/**
 * The JSON Schema dialect every kind is written in: OpenAPI v3 structural schemas plus the
 * `x-svc-*` markers. Built-in kinds produce it through TypeBox (libs/api), CustomResourceDefinitions
 * carry it verbatim; validation, defaulting, patching and apply all read it. The type names what
 * those readers use; the index signature keeps every other keyword (TypeBox's own among them), so a
 * kind's full schema is a JsonSchema as it is.
 */

/** `x-svc-list-type`: how a list merges (whole, as a set of scalars, or item by item by its keys). */
export type ListType = 'atomic' | 'set' | 'map';
/** `x-svc-map-type`: whether an object merges as a whole or field by field. */
export type MapType = 'atomic' | 'granular';
/** Strategic merge patch strategy of a list or struct; `retainKeys` may be combined with either. */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys' | 'retainKeys,merge' | 'replace,retainKeys';

export interface JsonSchema {
  type?: string | string[];
  format?: string;
  description?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  multipleOf?: number;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  patternProperties?: Record<string, JsonSchema>;
  propertyNames?: JsonSchema;
  /** Tuple forms are not structural and are not supported. */
  items?: JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  not?: JsonSchema;
  /** Local references only (`#/...`), resolved against the schema given to the patch function. */
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  'x-svc-list-type'?: ListType;
  'x-svc-list-map-keys'?: string[];
  'x-svc-map-type'?: MapType;
  'x-svc-patch-merge-key'?: string;
  'x-svc-patch-strategy'?: PatchStrategy;
  'x-svc-int-or-string'?: boolean;
  'x-svc-preserve-unknown-fields'?: boolean;
  'x-svc-embedded-resource'?: boolean;
  /** Set on CRD-derived schemas only: items of the list must differ in these keys. */
  'x-svc-unique-map-keys'?: string[];
  [keyword: string]: unknown;
}

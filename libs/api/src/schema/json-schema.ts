/**
 * The JSON Schema dialect every kind is written in: OpenAPI v3 structural schemas plus the
 * `x-svc-*` markers. Built-in kinds produce it through TypeBox, CustomResourceDefinitions carry
 * it verbatim; both are walked by the same engine, so the type only names what the engine reads.
 */
export type ListType = 'atomic' | 'set' | 'map';
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

/** Vendor keywords the engine understands; ajv is told about each of them. */
export const SVC_KEYWORDS = [
  'x-svc-list-type',
  'x-svc-list-map-keys',
  'x-svc-map-type',
  'x-svc-patch-merge-key',
  'x-svc-patch-strategy',
  'x-svc-int-or-string',
  'x-svc-preserve-unknown-fields',
  'x-svc-embedded-resource',
  'x-svc-group-version-kind',
  'x-svc-unique-map-keys',
] as const;

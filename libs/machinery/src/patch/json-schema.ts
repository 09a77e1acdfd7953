/** How a list is merged by strategic merge patch; `retainKeys` may be combined with either. */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys' | 'retainKeys,merge' | 'replace,retainKeys';

/**
 * The structural subset of JSON Schema that patching reads, with the product's `x-svc-*` markers.
 * The index signature keeps every other keyword (description, format, TypeBox's own fields, ...)
 * assignable, so a kind's full schema can be passed as is.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: { [name: string]: JsonSchema };
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  /** Local references only (`#/...`), resolved against the schema given to the patch function. */
  $ref?: string;
  $defs?: { [name: string]: JsonSchema };
  definitions?: { [name: string]: JsonSchema };
  'x-svc-patch-merge-key'?: string;
  'x-svc-patch-strategy'?: PatchStrategy;
  'x-svc-list-type'?: 'atomic' | 'set' | 'map';
  'x-svc-list-map-keys'?: string[];
  'x-svc-map-type'?: 'atomic' | 'granular';
  'x-svc-int-or-string'?: boolean;
  'x-svc-preserve-unknown-fields'?: boolean;
  [keyword: string]: unknown;
}

import type { JsonSchema, ListType, MapType, PatchStrategy } from '@svc/machinery';

/** The dialect every kind is written in; declared in libs/machinery, which patching and apply share. */
export type { JsonSchema, ListType, MapType, PatchStrategy };

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

import { Type, type Static } from '@sinclair/typebox';
import { StringMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { CONFIG_MAP_KEY_PATTERN } from '../../meta/names';
import type { List } from '../../meta/list';

const dataKeys = { propertyNames: { pattern: CONFIG_MAP_KEY_PATTERN, maxLength: 253 } };

export const SecretSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  /** Values are base64 encoded. */
  data: Type.Optional(StringMap(Type.String({ format: 'byte' }), dataKeys)),
  /** Write-only convenience: plain values the server merges into `data` on write. */
  stringData: Type.Optional(StringMap(Type.String(), dataKeys)),
  type: Type.Optional(Type.String({ default: 'Opaque' })),
  immutable: Type.Optional(Type.Boolean()),
});
export type Secret = Static<typeof SecretSchema>;
export type SecretList = List<Secret>;

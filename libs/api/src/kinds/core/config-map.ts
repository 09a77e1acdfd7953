import { Type, type Static } from '@sinclair/typebox';
import { StringMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { CONFIG_MAP_KEY_PATTERN } from '../../meta/names';
import type { List } from '../../meta/list';

const dataKeys = { propertyNames: { pattern: CONFIG_MAP_KEY_PATTERN, maxLength: 253 } };

export const ConfigMapSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  data: Type.Optional(StringMap(Type.String(), dataKeys)),
  binaryData: Type.Optional(StringMap(Type.String({ format: 'byte' }), dataKeys)),
  immutable: Type.Optional(Type.Boolean()),
});
export type ConfigMap = Static<typeof ConfigMapSchema>;
export type ConfigMapList = List<ConfigMap>;

import { Type, type Static } from '@sinclair/typebox';
import { describeFields, StringMap } from '../../schema/builders';
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  ConfigMapSchema,
  {
    data: 'Text values by key; a key is made of letters, digits, `-`, `_` and `.`.',
    binaryData: 'Binary values by key, base64 encoded; a key may not be in data as well.',
    immutable: 'When true, data and binaryData may no longer change and it cannot be set back; only a delete remains. Node agents then need not watch it.',
  },
  'Configuration, as keys and values, that pods read as environment variables, command arguments or files. At most 1 MiB in all.',
);

import { Type, type Static } from '@sinclair/typebox';
import { describeFields, StringMap } from '../../schema/builders';
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  SecretSchema,
  {
    data: 'Values by key, base64 encoded; a key is made of letters, digits, `-`, `_` and `.`.',
    stringData: 'Values by key as plain text, for writing only: merged into data on write, winning over it, and never shown on read.',
    type: 'What the Secret holds, which decides the keys it must have: Opaque (the default), kubernetes.io/service-account-token, kubernetes.io/dockerconfigjson, kubernetes.io/tls, kubernetes.io/basic-auth, kubernetes.io/ssh-auth and others. It cannot change.',
    immutable: 'When true, data may no longer change and it cannot be set back; only a delete remains. Node agents then need not watch it.',
  },
  'Sensitive data (passwords, tokens, keys) that pods read as files or environment variables. At most 1 MiB in all.',
);

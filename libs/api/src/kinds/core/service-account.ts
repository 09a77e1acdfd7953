import { Type, type Static } from '@sinclair/typebox';
import { describeFields, ListAtomic, ListMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { LocalObjectReferenceSchema, ObjectReferenceSchema } from './object-reference';

export const ServiceAccountSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  secrets: Type.Optional(ListMap(ObjectReferenceSchema, ['name'])),
  imagePullSecrets: Type.Optional(ListAtomic(LocalObjectReferenceSchema)),
  automountServiceAccountToken: Type.Optional(Type.Boolean()),
});
export type ServiceAccount = Static<typeof ServiceAccountSchema>;
export type ServiceAccountList = List<ServiceAccount>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  ServiceAccountSchema,
  {
    secrets: 'Deprecated list of Secrets tied to the account; pods get short-lived tokens through projected volumes instead.',
    imagePullSecrets: 'Registry credentials given, at creation, to every pod that runs as this account and names none of its own.',
    automountServiceAccountToken: "Whether pods of this account get its token mounted when they do not say; a pod's own setting wins. True by default.",
  },
  'An identity for the processes of pods, whose tokens the API server accepts.',
);

import { Type, type Static } from '@sinclair/typebox';
import { ListAtomic, ListMap } from '../../schema/builders';
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

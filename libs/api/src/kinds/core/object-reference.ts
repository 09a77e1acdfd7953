import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC } from '../../schema/builders';

export const ObjectReferenceSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    resourceVersion: Type.Optional(Type.String()),
    fieldPath: Type.Optional(Type.String()),
  },
  ATOMIC,
);
export type ObjectReference = Static<typeof ObjectReferenceSchema>;

export const LocalObjectReferenceSchema = Type.Object({ name: Type.Optional(Type.String()) }, ATOMIC);
export type LocalObjectReference = Static<typeof LocalObjectReferenceSchema>;

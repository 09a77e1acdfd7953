import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC } from '../schema/builders';

export const OwnerReferenceSchema = Type.Object(
  {
    apiVersion: Type.String(),
    kind: Type.String(),
    name: Type.String(),
    uid: Type.String(),
    controller: Type.Optional(Type.Boolean()),
    blockOwnerDeletion: Type.Optional(Type.Boolean()),
  },
  ATOMIC,
);
export type OwnerReference = Static<typeof OwnerReferenceSchema>;

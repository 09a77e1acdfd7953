import { Type } from '@sinclair/typebox';
import type { OwnerReference } from '@svc/machinery';
import { ATOMIC } from '../schema/builders';

export type { OwnerReference };

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

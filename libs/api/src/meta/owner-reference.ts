import { Type } from '@sinclair/typebox';
import type { OwnerReference } from '@svc/machinery';
import { ATOMIC, describeFields } from '../schema/builders';

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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  OwnerReferenceSchema,
  {
    apiVersion: "The owner's group and version, such as `apps/v1`.",
    kind: "The owner's kind, such as `ReplicaSet`.",
    name: "The owner's name.",
    uid: "The owner's uid: an owner deleted and recreated under the same name is another owner.",
    controller: 'Whether this owner is the one that manages the object; at most one owner is.',
    blockOwnerDeletion:
      'When true, a foreground delete of the owner waits until this object is gone. Setting it needs permission to delete the owner. False by default.',
  },
  'An object another one belongs to: in the same namespace, or cluster-wide. When every owner is gone, the garbage collector deletes the dependent.',
);

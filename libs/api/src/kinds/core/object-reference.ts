import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, describeFields } from '../../schema/builders';

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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  ObjectReferenceSchema,
  {
    apiVersion: "The object's group and version.",
    kind: "The object's kind.",
    namespace: "The object's namespace; empty for a cluster-wide object.",
    name: "The object's name.",
    uid: "The object's uid.",
    resourceVersion: 'The version of the object meant, when a particular one is.',
    fieldPath: 'A part of the object rather than the whole, such as `spec.containers{web}` for one container of a pod.',
  },
  'Any object, by its kind, namespace, name and uid.',
);
describeFields(LocalObjectReferenceSchema, { name: 'The name of an object in the same namespace.' }, 'An object of the same namespace, by name.');

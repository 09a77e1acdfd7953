import { Type } from '@sinclair/typebox';
import type { Status, StatusCause, StatusDetails, StatusReason } from '@svc/machinery';
import { describeFields, Int32, ListAtomic, StringEnum } from '../schema/builders';
import { ListMetaSchema } from './list-meta';

export type { Status, StatusCause, StatusDetails };

/** One cause of a failure; Kubernetes' JSON names the cause type `reason` (Go field `Type`). */
export const StatusCauseSchema = Type.Object({
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
});

export const StatusDetailsSchema = Type.Object({
  name: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  causes: Type.Optional(ListAtomic(StatusCauseSchema)),
  retryAfterSeconds: Type.Optional(Int32()),
});

/** The `Status` body of every error response (and of some successful deletes). */
export const StatusSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.Literal('Status')),
  metadata: Type.Optional(ListMetaSchema),
  status: Type.Optional(StringEnum(['Success', 'Failure'] as const)),
  message: Type.Optional(Type.String()),
  reason: Type.Optional(Type.Unsafe<StatusReason>(Type.String())),
  details: Type.Optional(StatusDetailsSchema),
  code: Type.Optional(Int32()),
});

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  StatusCauseSchema,
  {
    reason: 'What went wrong, as a word programs may match: FieldValueInvalid, FieldValueRequired, FieldValueNotFound, FieldValueDuplicate and the like.',
    message: 'What went wrong, in words for people.',
    field: 'The field at fault, as a path such as `spec.containers[0].image`; empty when no one field is.',
  },
  'One reason a request failed, often one field.',
);
describeFields(
  StatusDetailsSchema,
  {
    name: 'The name of the object the status is about, when there is one.',
    group: 'The API group of that object.',
    kind: 'The kind (or resource) of that object.',
    uid: 'The uid of that object, when known.',
    causes: 'The causes of a failure, such as each invalid field.',
    retryAfterSeconds: 'How long the client should wait before it tries again.',
  },
  'More on a Status: the object concerned and the causes of a failure.',
);
describeFields(StatusSchema, {
  apiVersion: 'The version of this schema, `v1`.',
  kind: 'Always `Status`.',
  status: 'Success or Failure.',
  message: 'What happened, in words for people.',
  reason:
    'What happened, as a CamelCase word programs may match (NotFound, AlreadyExists, Conflict, Invalid, Forbidden, ...); empty when the code says it all.',
  details: 'More on what happened, by reason: the object concerned and the causes.',
  code: 'The HTTP status code of the answer.',
});

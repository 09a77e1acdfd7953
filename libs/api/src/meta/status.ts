import { Type, type Static } from '@sinclair/typebox';
import { Int32, ListAtomic, StringEnum } from '../schema/builders';
import { ListMetaSchema } from './list-meta';

export const StatusCauseSchema = Type.Object({
  type: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
});
export type StatusCause = Static<typeof StatusCauseSchema>;

export const StatusDetailsSchema = Type.Object({
  name: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  causes: Type.Optional(ListAtomic(StatusCauseSchema)),
  retryAfterSeconds: Type.Optional(Int32()),
});
export type StatusDetails = Static<typeof StatusDetailsSchema>;

/** The `Status` body of every error response (and of some successful deletes). */
export const StatusSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.Literal('Status')),
  metadata: Type.Optional(ListMetaSchema),
  status: Type.Optional(StringEnum(['Success', 'Failure'] as const)),
  message: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  details: Type.Optional(StatusDetailsSchema),
  code: Type.Optional(Int32()),
});
export type Status = Static<typeof StatusSchema>;

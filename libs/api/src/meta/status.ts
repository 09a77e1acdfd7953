import { Type } from '@sinclair/typebox';
import type { Status, StatusCause, StatusDetails, StatusReason } from '@svc/machinery';
import { Int32, ListAtomic, StringEnum } from '../schema/builders';
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

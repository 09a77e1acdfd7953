import { Type } from '@sinclair/typebox';
import type { JsonObject, ManagedFieldsEntry } from '@svc/machinery';
import { FreeForm, StringEnum, Time } from '../schema/builders';

export type { ManagedFieldsEntry };

export const ManagedFieldsEntrySchema = Type.Object({
  manager: Type.Optional(Type.String()),
  operation: Type.Optional(StringEnum(['Apply', 'Update'] as const)),
  apiVersion: Type.Optional(Type.String()),
  time: Type.Optional(Time()),
  fieldsType: Type.Optional(StringEnum(['FieldsV1'] as const)),
  /** Tree of `f:<field>`, `k:<keys>`, `v:<value>` and `i:<index>` nodes; leaves are empty objects. */
  fieldsV1: Type.Optional(Type.Unsafe<JsonObject>(FreeForm())),
  subresource: Type.Optional(Type.String()),
});

import { Type, type Static } from '@sinclair/typebox';
import { Int64 } from '../schema/builders';

export const ListMetaSchema = Type.Object({
  resourceVersion: Type.Optional(Type.String()),
  continue: Type.Optional(Type.String()),
  remainingItemCount: Type.Optional(Int64()),
  selfLink: Type.Optional(Type.String()),
});
export type ListMeta = Static<typeof ListMetaSchema>;

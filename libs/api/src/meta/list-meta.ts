import { Type } from '@sinclair/typebox';
import type { ListMeta } from '@svc/machinery';
import { Int64 } from '../schema/builders';

export type { ListMeta };

export const ListMetaSchema = Type.Object({
  resourceVersion: Type.Optional(Type.String()),
  continue: Type.Optional(Type.String()),
  remainingItemCount: Type.Optional(Int64()),
  selfLink: Type.Optional(Type.String()),
});

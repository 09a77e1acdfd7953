import { Type } from '@sinclair/typebox';
import type { TypeMeta } from '@svc/machinery';

export type { TypeMeta };

export const TypeMetaSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
});

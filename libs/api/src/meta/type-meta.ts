import { Type, type Static } from '@sinclair/typebox';

export const TypeMetaSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
});
export type TypeMeta = Static<typeof TypeMetaSchema>;

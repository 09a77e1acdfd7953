import { Type, type TSchema } from '@sinclair/typebox';
import type { List } from '@svc/machinery';
import { ListMetaSchema } from './list-meta';

export type { List };

export function listSchema<T extends TSchema>(item: T) {
  return Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: ListMetaSchema,
    items: Type.Array(item),
  });
}

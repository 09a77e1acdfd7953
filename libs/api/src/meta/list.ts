import { Type, type TSchema } from '@sinclair/typebox';
import { ListMetaSchema, type ListMeta } from './list-meta';

/** A collection response: `<Kind>List` with the items of one kind. */
export interface List<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

export function listSchema<T extends TSchema>(item: T) {
  return Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: ListMetaSchema,
    items: Type.Array(item),
  });
}

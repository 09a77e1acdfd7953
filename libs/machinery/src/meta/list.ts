import type { ListMeta } from './list-meta';

/** A collection response: `<Kind>List` with the items of one kind. */
export interface List<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

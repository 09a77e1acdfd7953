/** The metadata of a list, and of a Status (meta/v1 ListMeta). */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

import type { OwnerReference } from '@svc/api';

/** The metadata the helpers read and write; every typed kind fits. */
export interface MetaObject {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?:
    | {
        name?: string | undefined;
        namespace?: string | undefined;
        uid?: string | undefined;
        resourceVersion?: string | undefined;
        finalizers?: string[] | undefined;
        deletionTimestamp?: string | undefined;
        ownerReferences?: OwnerReference[] | undefined;
      }
    | undefined;
}

/** A deep copy that can be edited (cached objects are frozen). */
export function editable<T>(obj: T): T {
  return structuredClone(obj);
}

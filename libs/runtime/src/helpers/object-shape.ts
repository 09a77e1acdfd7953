import type { OwnerReference } from '@svc/api';

/** The metadata the helpers read and write; every typed kind fits. */
export interface MetaObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    finalizers?: string[];
    deletionTimestamp?: string;
    ownerReferences?: OwnerReference[];
  };
}

/** A deep copy that can be edited (cached objects are frozen). */
export function editable<T>(obj: T): T {
  return structuredClone(obj);
}

import type { ManagedFieldsEntry } from './managed-fields-entry';
import type { OwnerReference } from './owner-reference';

/** The metadata every stored object has (meta/v1 ObjectMeta). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339. */
  creationTimestamp?: string;
  /** RFC 3339. */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

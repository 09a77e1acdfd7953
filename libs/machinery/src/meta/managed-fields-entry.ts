import type { JsonObject } from '../patch/json-value';

export type ManagedFieldsOperation = 'Apply' | 'Update';

/** One entry of `metadata.managedFields`: which fields one manager owns, and since when. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: ManagedFieldsOperation;
  apiVersion?: string;
  /** RFC 3339 in seconds, UTC: when the manager last changed the object. */
  time?: string;
  fieldsType?: 'FieldsV1';
  /** Tree of `f:<field>`, `k:<keys>`, `v:<value>` and `i:<index>` nodes; leaves are empty objects. */
  fieldsV1?: JsonObject;
  subresource?: string;
}

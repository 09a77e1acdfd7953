/** An object this one depends on; the garbage collector deletes dependents whose owners are gone. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** At most one owner is the controller of an object. */
  controller?: boolean;
  /** With foreground deletion, the owner is not deleted before this dependent is. */
  blockOwnerDeletion?: boolean;
}

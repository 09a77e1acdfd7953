export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** Checked against the stored object before an update or delete. */
export interface Preconditions {
  /** Must equal the stored object's metadata.uid. */
  uid?: string;
  /** Must equal the stored object's resourceVersion. */
  resourceVersion?: string;
}

/** The body of a DELETE. */
export interface DeleteOptions {
  apiVersion?: string;
  kind?: string;
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  dryRun?: 'All'[];
}

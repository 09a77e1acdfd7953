export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** metav1.Condition, the shape new APIs and CRDs use. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  /** RFC 3339. */
  lastTransitionTime: string;
  reason: string;
  message: string;
}

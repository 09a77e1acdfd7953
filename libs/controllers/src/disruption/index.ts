import type { ControllerDescriptor } from '../controller-descriptor';
import { DisruptionReconciler } from './disruption-reconciler';
import { StalePodDisruptionReconciler } from './stale-pod-disruption-reconciler';

export { DisruptionReconciler } from './disruption-reconciler';
export { DELETION_TIMEOUT_MS } from './budget-status';
export { StalePodDisruptionReconciler, STALE_POD_DISRUPTION_TIMEOUT_MS } from './stale-pod-disruption-reconciler';

/**
 * Keeps each PodDisruptionBudget's status (disruptions allowed now) from the pods it selects, and
 * sets back a pod's stale DisruptionTarget condition; one worker each, as in Kubernetes.
 */
export const disruptionController: ControllerDescriptor = {
  name: 'disruption',
  reconcilers: [DisruptionReconciler, StalePodDisruptionReconciler],
  concurrency: () => ({}),
};

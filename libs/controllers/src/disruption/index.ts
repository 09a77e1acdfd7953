import type { BuiltInController } from '../built-in-controller';
import { DisruptionReconciler } from './disruption-reconciler';

export { DisruptionReconciler } from './disruption-reconciler';
export { DELETION_TIMEOUT_MS } from './budget-status';

/** Keeps each PodDisruptionBudget's status (disruptions allowed now) from the pods it selects; one worker, as in Kubernetes. */
export const disruptionController: BuiltInController = {
  name: 'disruption',
  providers: [DisruptionReconciler],
  concurrency: () => ({}),
};

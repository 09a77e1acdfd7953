import type { ControllerDescriptor } from '../controller-descriptor';
import { PV_PROTECTION_RECONCILER_NAME, PvProtectionReconciler } from './pv-protection-reconciler';

export { PvProtectionReconciler } from './pv-protection-reconciler';

/** Keeps a Bound volume until it is released (the `kubernetes.io/pv-protection` finalizer). */
export const pvProtectionController: ControllerDescriptor = {
  name: 'pv-protection',
  reconcilers: [PvProtectionReconciler],
  // Kubernetes runs one worker.
  concurrency: () => ({ [PV_PROTECTION_RECONCILER_NAME]: 1 }),
};

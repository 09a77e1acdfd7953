import type { ControllerDescriptor } from '../controller-descriptor';
import { PVC_PROTECTION_RECONCILER_NAME, PvcProtectionReconciler } from './pvc-protection-reconciler';

export { PvcProtectionReconciler, podUsesClaim } from './pvc-protection-reconciler';

/** Keeps a claim that a running pod uses until the pod has gone (the `kubernetes.io/pvc-protection` finalizer). */
export const pvcProtectionController: ControllerDescriptor = {
  name: 'pvc-protection',
  reconcilers: [PvcProtectionReconciler],
  // Kubernetes runs one worker.
  concurrency: () => ({ [PVC_PROTECTION_RECONCILER_NAME]: 1 }),
};

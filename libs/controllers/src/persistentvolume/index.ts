import type { ControllerDescriptor } from '../controller-descriptor';
import { CLAIM_BINDER_RECONCILER_NAME, ClaimBinderReconciler } from './claim-binder-reconciler';
import { PersistentVolumeBinderOptions } from './persistent-volume-binder-options';
import { VOLUME_BINDER_RECONCILER_NAME, VolumeBinderReconciler } from './volume-binder-reconciler';

export { ClaimBinderReconciler, externalProvisioningMessage } from './claim-binder-reconciler';
export { VolumeBinderReconciler } from './volume-binder-reconciler';
export { PersistentVolumeBinderOptions, PV_CLAIM_BINDER_SYNC_PERIOD_MS } from './persistent-volume-binder-options';
export * from './volume-annotations';
export * from './volume-matching';

/** Binds claims to volumes, hands claims to provisioners, and releases and reclaims volumes. */
export const persistentVolumeBinderController: ControllerDescriptor = {
  name: 'persistentvolume-binder',
  reconcilers: [ClaimBinderReconciler, VolumeBinderReconciler],
  options: (flags) => [PersistentVolumeBinderOptions.fromFlags(flags)],
  // Kubernetes runs one worker for claims and one for volumes.
  concurrency: () => ({ [CLAIM_BINDER_RECONCILER_NAME]: 1, [VOLUME_BINDER_RECONCILER_NAME]: 1 }),
};

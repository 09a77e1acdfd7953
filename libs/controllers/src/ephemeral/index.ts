import type { ControllerDescriptor } from '../controller-descriptor';
import { EPHEMERAL_VOLUME_RECONCILER_NAME, EphemeralVolumeReconciler } from './ephemeral-volume-reconciler';

export { EphemeralVolumeReconciler, claimIsForPod, ephemeralClaim } from './ephemeral-volume-reconciler';

/** Makes the claim of each generic ephemeral volume of a pod, owned by the pod. */
export const ephemeralVolumeController: ControllerDescriptor = {
  name: 'ephemeral-volume',
  reconcilers: [EphemeralVolumeReconciler],
  concurrency: (flags) => ({ [EPHEMERAL_VOLUME_RECONCILER_NAME]: flags.concurrentEphemeralvolumeSyncs }),
};

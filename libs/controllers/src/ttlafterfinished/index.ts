import type { ControllerDescriptor } from '../controller-descriptor';
import { TTL_AFTER_FINISHED_RECONCILER_NAME, TtlAfterFinishedReconciler } from './ttl-after-finished-reconciler';

export { TtlAfterFinishedReconciler } from './ttl-after-finished-reconciler';

/** Deletes finished Jobs once their `ttlSecondsAfterFinished` has passed. */
export const ttlAfterFinishedController: ControllerDescriptor = {
  name: 'ttl-after-finished',
  reconcilers: [TtlAfterFinishedReconciler],
  concurrency: (flags) => ({ [TTL_AFTER_FINISHED_RECONCILER_NAME]: flags.concurrentTtlAfterFinishedSyncs }),
};

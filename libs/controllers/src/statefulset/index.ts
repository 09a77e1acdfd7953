import type { ControllerDescriptor } from '../controller-descriptor';
import { StatefulSetReconciler } from './stateful-set-reconciler';

/** Runs each StatefulSet's pods with stable names and storage, in order, and rolls them to new templates through ControllerRevisions. */
export const statefulSetController: ControllerDescriptor = {
  name: 'statefulset',
  reconcilers: [StatefulSetReconciler],
  concurrency: (flags) => ({ statefulset: flags.concurrentStatefulsetSyncs }),
};

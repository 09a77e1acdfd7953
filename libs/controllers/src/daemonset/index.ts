import type { ControllerDescriptor } from '../controller-descriptor';
import { DaemonSetReconciler } from './daemonset-reconciler';

/** Kubernetes' default number of DaemonSet workers (`--concurrent-daemonset-syncs`, which this controller manager does not take). */
export const DAEMONSET_WORKERS = 2;

/** Runs one pod of each DaemonSet on every node that should run it, and rolls template changes out. */
export const daemonSetController: ControllerDescriptor = {
  name: 'daemonset',
  reconcilers: [DaemonSetReconciler],
  concurrency: () => ({ daemonset: DAEMONSET_WORKERS }),
};

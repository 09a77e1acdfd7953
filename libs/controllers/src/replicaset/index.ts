import type { ControllerDescriptor } from '../controller-descriptor';
import { ReplicaSetOptions } from './replicaset-options';
import { ReplicaSetReconciler } from './replicaset-reconciler';

export { ReplicaSetOptions } from './replicaset-options';

/** Keeps each ReplicaSet's pods at spec.replicas: creates, deletes, adopts and releases pods, and reports status. */
export const replicaSetController: ControllerDescriptor = {
  name: 'replicaset',
  reconcilers: [ReplicaSetReconciler],
  options: (flags) => [ReplicaSetOptions.fromFlags(flags)],
  concurrency: (flags) => ({ replicaset: flags.concurrentReplicasetSyncs }),
};

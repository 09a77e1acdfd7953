import type { ControllerDescriptor } from '../controller-descriptor';
import { ReplicaSetOptions } from '../replicaset/replicaset-options';
import { ReplicationControllerReconciler } from './replication-controller-reconciler';

/** Keeps each ReplicationController's pods at spec.replicas, as the ReplicaSet controller does for ReplicaSets. */
export const replicationControllerController: ControllerDescriptor = {
  name: 'replicationcontroller',
  reconcilers: [ReplicationControllerReconciler],
  options: (flags) => [ReplicaSetOptions.fromFlags(flags)],
  concurrency: (flags) => ({ replicationcontroller: flags.concurrentRcSyncs }),
};

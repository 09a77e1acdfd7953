import type { BuiltInController } from '../built-in-controller';
import { ReplicationControllerReconciler } from './replication-controller-reconciler';

/** Keeps each ReplicationController's pods at spec.replicas, as the ReplicaSet controller does for ReplicaSets. */
export const replicationControllerController: BuiltInController = {
  name: 'replicationcontroller',
  providers: [ReplicationControllerReconciler],
  concurrency: (o) => ({ replicationcontroller: o.concurrentRcSyncs }),
};

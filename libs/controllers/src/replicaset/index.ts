import type { BuiltInController } from '../built-in-controller';
import { ReplicaSetReconciler } from './replicaset-reconciler';

/** Keeps each ReplicaSet's pods at spec.replicas: creates, deletes, adopts and releases pods, and reports status. */
export const replicaSetController: BuiltInController = {
  name: 'replicaset',
  providers: [ReplicaSetReconciler],
  concurrency: (o) => ({ replicaset: o.concurrentReplicasetSyncs }),
};

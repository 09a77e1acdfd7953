import type { BuiltInController } from '../built-in-controller';
import { replicaSetReconcilerProvider } from './replicaset-reconciler.provider';

/** Keeps each ReplicaSet's pods at spec.replicas: creates, deletes, adopts and releases pods, and reports status. */
export const replicaSetController: BuiltInController = {
  name: 'replicaset',
  providers: [replicaSetReconcilerProvider],
  concurrency: (o) => ({ replicaset: o.concurrentReplicasetSyncs }),
};

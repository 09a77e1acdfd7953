import type { BuiltInController } from '../built-in-controller';

/** Keeps each ReplicaSet's pods at spec.replicas (not built yet). */
export const replicaSetController: BuiltInController = {
  name: 'replicaset',
  providers: [],
  concurrency: (o) => ({ replicaset: o.concurrentReplicasetSyncs }),
};

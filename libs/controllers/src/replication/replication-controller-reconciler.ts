import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { Reconciler } from '@svc/runtime';
import { orphanPodChanged } from '../common/orphan-pod-watch';
import { replicaSetsForOrphan } from '../replicaset/replicasets-for-orphan';
import { podControllerUidIndex } from '../common/pod-controller-index';
import { REPLICATION_CONTROLLERS } from '../replicaset/replicated-kind';
import { ReplicaSetOptions } from '../replicaset/replicaset-options';
import { ReplicaSetReconciler } from '../replicaset/replicaset-reconciler';

/** The controller's name: metrics, logs, and the `--concurrent-rc-syncs` flag. */
export const REPLICATION_CONTROLLER_NAME = 'replicationcontroller';

/**
 * Kubernetes' replication manager: the ReplicaSet controller's work, done for core/v1
 * ReplicationControllers (their label-map selector read as matchLabels), with pods whose
 * controller reference names the ReplicationController.
 */
@Reconciler({
  name: REPLICATION_CONTROLLER_NAME,
  for: BUILTIN_RESOURCES.replicationControllers,
  owns: [BUILTIN_RESOURCES.pods],
  indexes: [podControllerUidIndex],
  watches: [
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod, _r: unknown, cache) => replicaSetsForOrphan(REPLICATION_CONTROLLERS.views(cache), pod),
      predicates: [orphanPodChanged],
    },
  ],
})
export class ReplicationControllerReconciler extends ReplicaSetReconciler {
  protected static override readonly replicatedKind = REPLICATION_CONTROLLERS;

  constructor(client: Client, options: ReplicaSetOptions) {
    super(client, options);
  }
}

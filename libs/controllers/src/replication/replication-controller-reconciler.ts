import { Inject } from '@nestjs/common';
import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { Manager, Reconciler } from '@svc/runtime';
import { CONTROLLER_MANAGER_OPTIONS } from '../controller-manager-options';
import { orphanPodChanged } from '../replicaset/orphan-pod-watch';
import { REPLICATION_CONTROLLERS } from '../replicaset/replicated-kind';
import { ReplicaSetReconciler, type ReplicaSetReconcilerFlags } from '../replicaset/replicaset-reconciler';

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
  watches: [
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod: Pod, r: ReplicationControllerReconciler) => r.replicaSetsForOrphan(pod),
      predicates: [orphanPodChanged],
    },
  ],
})
export class ReplicationControllerReconciler extends ReplicaSetReconciler {
  protected static override readonly replicatedKind = REPLICATION_CONTROLLERS;

  constructor(manager: Manager, client: Client, @Inject(CONTROLLER_MANAGER_OPTIONS) flags: ReplicaSetReconcilerFlags = {}) {
    super(manager, client, flags);
  }
}

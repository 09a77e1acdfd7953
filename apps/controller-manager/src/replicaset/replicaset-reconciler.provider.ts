import type { FactoryProvider } from '@nestjs/common';
import type { ReplicaSet } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { getReconcilerOptions, Manager, Reconciler, type ReconcilerOptions } from '@svc/runtime';
import { CONTROLLER_MANAGER_OPTIONS, type ControllerManagerOptions } from '../controller-manager-options';
import { orphanPodWatch } from './orphan-pod-watch';
import { ReplicaSetReconciler, replicaSetSettings } from './replicaset.reconciler';

/**
 * The ReplicaSet reconciler of one manager. Its options are those `@Reconciler` recorded on the class
 * plus the orphan-pod watch, whose mapping reads this manager's ReplicaSet cache: options are read off
 * the instance's class, so the instance gets a class of its own carrying them.
 */
export const replicaSetReconcilerProvider: FactoryProvider<ReplicaSetReconciler> = {
  provide: ReplicaSetReconciler,
  inject: [Manager, Client, CONTROLLER_MANAGER_OPTIONS],
  useFactory: (manager: Manager, client: Client, options: ControllerManagerOptions) => {
    const base = getReconcilerOptions(ReplicaSetReconciler) as ReconcilerOptions<ReplicaSet>;
    const replicaSets = manager.informerFor(BUILTIN_RESOURCES.replicaSets).lister();
    const bound: ReconcilerOptions<ReplicaSet> = { ...base, watches: [...(base.watches ?? []), orphanPodWatch(replicaSets)] };
    @Reconciler<ReplicaSet>(bound)
    class ManagedReplicaSetReconciler extends ReplicaSetReconciler {}
    return new ManagedReplicaSetReconciler(manager, client, replicaSetSettings(options));
  },
};

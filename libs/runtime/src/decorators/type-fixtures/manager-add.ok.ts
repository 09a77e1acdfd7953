// Options given to Manager.add are typed by their resources as well.
import { deploymentDefinition, type Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import type { KubeObject } from '@svc/informers';
import type { Manager, Reconcile } from '@svc/runtime';

type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function same<A, B>(proof: Equals<A, B>): void {
  void proof;
}

export function addPodWatcher(manager: Manager, reconciler: Reconcile): void {
  manager.add(reconciler, {
    name: 'pod-watcher',
    for: BUILTIN_RESOURCES.services,
    watches: [
      { resource: BUILTIN_RESOURCES.pods, mapTo: (pod) => (same<typeof pod, Pod>(true), [{ name: pod.spec.nodeName ?? '' }]) },
      { resource: deploymentDefinition, mapTo: (obj) => (same<typeof obj, KubeObject>(true), []) },
    ],
  });
}

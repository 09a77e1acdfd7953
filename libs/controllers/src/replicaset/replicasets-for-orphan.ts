import type { Pod, ReplicaSet } from '@svc/api';
import type { Lister } from '@svc/informers';
import { getControllerOf, type Request } from '@svc/runtime';
import { controllerSelector } from '../common/controller-selector';
import type { ReplicaSetViews } from './replicated-kind';

/** The ReplicaSets of the pod's namespace whose selector matches it, when it has no controller. */
export function replicaSetsForOrphan(replicaSets: Pick<Lister<ReplicaSet>, 'namespace'> | ReplicaSetViews, pod: Pod): Request[] {
  if (getControllerOf(pod)) return [];
  const namespace = pod.metadata?.namespace ?? '';
  const requests: Request[] = [];
  for (const rs of replicaSets.namespace(namespace).list()) {
    if (controllerSelector(rs)?.matches(pod.metadata?.labels)) requests.push({ namespace, name: rs.metadata?.name ?? '' });
  }
  return requests;
}

import type { Pod, ReplicaSet } from '@svc/api';
import type { Lister } from '@svc/informers';
import { getControllerOf, type Predicate, type Request } from '@svc/runtime';
import type { ReplicaSetViews } from './replicated-kind';
import { replicaSetSelector } from './replicaset-selector';

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => a?.[k] === b?.[k]);
}

/**
 * The pod changes that may make an orphan adoptable (Kubernetes' addPod/updatePod for orphans): a
 * new pod, or a change of labels or of controller. A deleted orphan concerns no ReplicaSet.
 */
export const orphanPodChanged: Predicate<Pod> = (event) => {
  if (event.type === 'delete') return false;
  if (event.type === 'create') return true;
  const pod = event.object;
  const old = event.oldObject;
  return !sameLabels(old.metadata?.labels, pod.metadata?.labels) || getControllerOf(old)?.uid !== getControllerOf(pod)?.uid;
};

/** The ReplicaSets of the pod's namespace whose selector matches it, when it has no controller. */
export function replicaSetsForOrphan(replicaSets: Pick<Lister<ReplicaSet>, 'namespace'> | ReplicaSetViews, pod: Pod): Request[] {
  if (getControllerOf(pod)) return [];
  const namespace = pod.metadata?.namespace ?? '';
  const requests: Request[] = [];
  for (const rs of replicaSets.namespace(namespace).list()) {
    if (replicaSetSelector(rs)?.matches(pod.metadata?.labels)) requests.push({ namespace, name: rs.metadata?.name ?? '' });
  }
  return requests;
}

import type { Pod } from '@svc/api';
import { getControllerOf, type Predicate } from '@svc/runtime';

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => a?.[k] === b?.[k]);
}

/**
 * The pod changes that may make an orphan adoptable (Kubernetes' addPod/updatePod for orphans): a
 * new pod, or a change of labels or of controller. A deleted orphan concerns no controller.
 */
export const orphanPodChanged: Predicate<Pod> = (event) => {
  if (event.type === 'delete') return false;
  if (event.type === 'create') return true;
  const pod = event.object;
  const old = event.oldObject;
  return !sameLabels(old.metadata?.labels, pod.metadata?.labels) || getControllerOf(old)?.uid !== getControllerOf(pod)?.uid;
};

import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { cacheIndex, getControllerOf } from '@svc/runtime';

/**
 * The pod cache index by controller: the uid of a pod's controller owner, or {@link orphanPodIndexKey}
 * of its namespace when it has none (Kubernetes' PodControllerUIDIndex). A ReplicaSet reads its own
 * pods and the orphans it may adopt without scanning the namespace.
 */
export const POD_CONTROLLER_UID_INDEX = 'podControllerUID';

/** The index value of the pods of `namespace` without a controller; a uid never contains a slash. */
export function orphanPodIndexKey(namespace: string): string {
  return `orphan/${namespace}`;
}

export function podControllerUidIndexFunc(pod: Pod): readonly string[] {
  const ref = getControllerOf(pod);
  return ref ? [ref.uid] : [orphanPodIndexKey(pod.metadata?.namespace ?? '')];
}

/** The index as the ReplicaSet and ReplicationController reconcilers declare it. */
export const podControllerUidIndex = cacheIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, podControllerUidIndexFunc);

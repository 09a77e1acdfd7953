import type { Pod } from '@svc/api';
import type { SharedInformer } from '@svc/informers';

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
  const ref = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
  return ref ? [ref.uid] : [orphanPodIndexKey(pod.metadata?.namespace ?? '')];
}

/** Adds the index to the shared pod cache unless another reader of it already did. */
export function ensurePodControllerUidIndex(informer: SharedInformer<Pod>): void {
  if (informer.indexer.indexNames().includes(POD_CONTROLLER_UID_INDEX)) return;
  informer.addIndexers({ [POD_CONTROLLER_UID_INDEX]: podControllerUidIndexFunc });
}

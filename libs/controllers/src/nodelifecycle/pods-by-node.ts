import type { Pod } from '@svc/api';
import type { SharedInformer } from '@svc/informers';

/** The pod cache's index by node, which the node lifecycle controllers read pods of one node through. */
export const PODS_BY_NODE = 'spec.nodeName';

function podsByNodeIndex(pod: Pod): readonly string[] {
  return pod.spec?.nodeName ? [pod.spec.nodeName] : [];
}

/** Adds the index to the shared pod informer unless another controller already did. */
export function indexPodsByNode(informer: SharedInformer<Pod>): SharedInformer<Pod> {
  if (!informer.indexer.indexNames().includes(PODS_BY_NODE)) informer.addIndexers({ [PODS_BY_NODE]: podsByNodeIndex });
  return informer;
}

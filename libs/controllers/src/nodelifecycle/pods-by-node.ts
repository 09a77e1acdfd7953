import { BUILTIN_RESOURCES } from '@svc/client';
import { cacheIndex } from '@svc/runtime';

/** The pod cache's index by node, which the node lifecycle controllers read pods of one node through. */
export const PODS_BY_NODE = 'spec.nodeName';

/** The index as the node lifecycle's reconcilers and monitor declare it. */
export const podsByNodeIndex = cacheIndex(BUILTIN_RESOURCES.pods, PODS_BY_NODE, (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));

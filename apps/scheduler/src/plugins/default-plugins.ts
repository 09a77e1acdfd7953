import type { FilterPlugin, ScorePlugin } from '../framework/plugin';
import { interPodAffinity } from './inter-pod-affinity';
import { nodeAffinityFilter, nodeAffinityScore } from './node-affinity';
import { nodeName } from './node-name';
import { nodePorts } from './node-ports';
import { balancedAllocationScore, leastAllocatedScore, nodeResourcesFit } from './node-resources-fit';
import { nodeUnschedulable } from './node-unschedulable';
import { ownerSpreadScore } from './owner-spread';
import { taintTolerationFilter, taintTolerationScore } from './taint-toleration';

/** The filters, in Kubernetes' default profile order. */
export const DEFAULT_FILTERS: readonly FilterPlugin[] = [
  nodeUnschedulable,
  nodeName,
  taintTolerationFilter,
  nodeAffinityFilter,
  nodePorts,
  nodeResourcesFit,
  interPodAffinity,
];

/**
 * The filters with the volume binding in its place of Kubernetes' default profile (after
 * NodeResourcesFit, before InterPodAffinity); it reads claims and volumes, so the process makes it.
 */
export function filtersWithVolumeBinding(volumeBinding: FilterPlugin): FilterPlugin[] {
  const filters = [...DEFAULT_FILTERS];
  filters.splice(filters.indexOf(nodeResourcesFit) + 1, 0, volumeBinding);
  return filters;
}

/** The scores, with Kubernetes' default weights. */
export const DEFAULT_SCORERS: readonly ScorePlugin[] = [
  taintTolerationScore,
  nodeAffinityScore,
  leastAllocatedScore,
  balancedAllocationScore,
  ownerSpreadScore,
];

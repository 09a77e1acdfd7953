import type { NodeInfo } from '../cache/node-info';
import { MAX_NODE_SCORE, type FilterPlugin, type ScorePlugin } from '../framework/plugin';

export const ERR_TOO_MANY_PODS = 'Too many pods';

export function insufficient(resource: string): string {
  return `Insufficient ${resource}`;
}

/**
 * Kubernetes' NodeResourcesFit filter: the pod count below `allocatable.pods`, and each resource the
 * pod requests within what the node has left (allocatable less the requests of the pods on it).
 */
export const nodeResourcesFit: FilterPlugin = {
  name: 'NodeResourcesFit',
  filter(state, node) {
    const reasons: string[] = [];
    if (node.pods.size + 1 > node.allowedPods) reasons.push(ERR_TOO_MANY_PODS);
    const want = state.pod.requests;
    const alloc = node.allocatable;
    const used = node.requested;
    if (want.milliCpu > 0 && want.milliCpu > alloc.milliCpu - used.milliCpu) reasons.push(insufficient('cpu'));
    if (want.memory > 0 && want.memory > alloc.memory - used.memory) reasons.push(insufficient('memory'));
    if (want.ephemeralStorage > 0 && want.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) reasons.push(insufficient('ephemeral-storage'));
    for (const [name, amount] of want.scalar) {
      if (amount > 0 && amount > (alloc.scalar.get(name) ?? 0) - (used.scalar.get(name) ?? 0)) reasons.push(insufficient(name));
    }
    return reasons.length === 0 ? undefined : reasons.length === 1 ? reasons[0] : reasons;
  },
  curedBy: (e) => (e.resource === 'Node' && (e.action === 'Add' || e.changes.has('allocatable'))) || (e.resource === 'AssignedPod' && e.action === 'Delete'),
};

/** CPU and memory in use after placing the pod, counting defaults for containers that request none, with the node's capacity. */
function nonZeroShares(node: NodeInfo, pod: { milliCpu: number; memory: number }): Array<[requested: number, capacity: number]> {
  return [
    [node.nonZeroRequested.milliCpu + pod.milliCpu, node.allocatable.milliCpu],
    [node.nonZeroRequested.memory + pod.memory, node.allocatable.memory],
  ];
}

function leastRequested(requested: number, capacity: number): number {
  if (capacity <= 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/**
 * Kubernetes' LeastAllocated strategy: the share of CPU and memory left free, averaged with equal
 * weights; a resource the node has none of is left out.
 */
export const leastAllocatedScore: ScorePlugin = {
  name: 'NodeResourcesFit',
  weight: 1,
  score(state, node) {
    const scored = nonZeroShares(node, state.pod.nonZero).filter(([, capacity]) => capacity > 0);
    if (scored.length === 0) return 0;
    return Math.trunc(scored.reduce((sum, [requested, capacity]) => sum + leastRequested(requested, capacity), 0) / scored.length);
  },
};

/**
 * Kubernetes' NodeResourcesBalancedAllocation: nodes whose CPU and memory shares (the pods' own
 * requests, the incoming one's included) stay close score higher; a resource the node has none of
 * is left out.
 */
export const balancedAllocationScore: ScorePlugin = {
  name: 'NodeResourcesBalancedAllocation',
  weight: 1,
  score(state, node) {
    const pod = state.pod.requests;
    const shares = [
      [node.requested.milliCpu + pod.milliCpu, node.allocatable.milliCpu],
      [node.requested.memory + pod.memory, node.allocatable.memory],
    ]
      .filter(([, capacity]) => capacity > 0)
      .map(([requested, capacity]) => Math.min(1, requested / capacity));
    // The standard deviation of two shares is half their difference; of one, none.
    const std = shares.length === 2 ? Math.abs(shares[0] - shares[1]) / 2 : 0;
    return Math.trunc((1 - std) * MAX_NODE_SCORE);
  },
};

import type { Refusal } from './plugin';

/**
 * No node fits the pod (Kubernetes' FitError): `0/3 nodes are available: 1 node(s) had untolerated
 * taint {k: v}, 2 Insufficient cpu.`, the reasons counted over the nodes and sorted.
 */
export class FitError extends Error {
  constructor(
    readonly numAllNodes: number,
    /** How many nodes gave each reason. */
    readonly reasons: ReadonlyMap<string, number>,
    /** The plugins that refused a node: only events they care about make the pod worth trying again. */
    readonly plugins: ReadonlySet<string>,
    /** Each node's refusal, by node name: preemption tries the nodes whose refusal evictions may cure. */
    readonly refusals: ReadonlyMap<string, Refusal> = new Map(),
    /** The reason a pre-filter rejected the pod with on every node, said once (Kubernetes' Diagnosis.PreFilterMsg). */
    readonly preFilterMessage?: string,
  ) {
    super(preFilterMessage ? `0/${numAllNodes} nodes are available: ${preFilterMessage}.` : fitErrorMessage(numAllNodes, reasons));
    this.name = 'FitError';
  }
}

export function fitErrorMessage(numAllNodes: number, reasons: ReadonlyMap<string, number>): string {
  const histogram = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort();
  return `0/${numAllNodes} nodes are available:${histogram.length > 0 ? ` ${histogram.join(', ')}.` : ''}`;
}

/** Each reason counted over the refusals, for the message. */
export function countReasons(refusals: Iterable<Refusal>): Map<string, number> {
  const reasons = new Map<string, number>();
  for (const refusal of refusals) for (const reason of refusal.reasons) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  return reasons;
}

/** Kubernetes' ErrNoNodesAvailable: the cluster has no node at all. */
export class NoNodesAvailableError extends Error {
  constructor() {
    super('no nodes available to schedule pods');
    this.name = 'NoNodesAvailableError';
  }
}

import type { NodeInfo } from '../cache/node-info';
import { podPriority, type PodInfo } from '../cache/pod-info';
import { countReasons, FitError, NoNodesAvailableError } from './fit-error';
import type { BindingPlugin, CycleState, FilterPlugin, Refusal, ScorePlugin } from './plugin';

/** Below this many nodes every node is searched (Kubernetes' minFeasibleNodesToFind). */
const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** The adaptive share never drops below this (minFeasibleNodesPercentageToFind). */
const MIN_FEASIBLE_NODES_PERCENTAGE = 5;

/**
 * How many fitting nodes to look for before scoring (Kubernetes' numFeasibleNodesToFind): every node
 * of a small cluster; of a larger one the given percentage, or 50% less 1% per 125 nodes (at least
 * 5%), and never fewer than 100.
 */
export function numFeasibleNodesToFind(numAllNodes: number, percentage: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let share = percentage;
  if (share <= 0) share = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE, 50 - Math.trunc(numAllNodes / 125));
  const count = Math.trunc((numAllNodes * share) / 100);
  return Math.max(count, MIN_FEASIBLE_NODES_TO_FIND);
}

export interface ScheduleResult {
  node: NodeInfo;
  /** Nodes searched, and how many of them fit. */
  evaluated: number;
  feasible: number;
}

/**
 * One scheduling attempt (Kubernetes' schedulePod): pre-filter, filter nodes round robin from where
 * the last attempt stopped until enough fit, score the fitting ones with weighted plugins, and take
 * the best (ties broken at random). Synchronous: the cache cannot change under it.
 */
export class Framework {
  private nextStartNodeIndex = 0;

  constructor(
    readonly filters: readonly FilterPlugin[],
    readonly scorers: readonly ScorePlugin[],
    private readonly percentageOfNodesToScore = 0,
    private readonly random: () => number = Math.random,
    readonly binders: readonly BindingPlugin[] = [],
  ) {}

  schedule(state: CycleState): ScheduleResult {
    const nodes = state.cache.nodes();
    const all = nodes.length;
    if (all === 0) throw new NoNodesAvailableError();
    for (const f of this.filters) {
      const rejected = f.preFilter?.(state);
      if (rejected) {
        const refusal: Refusal = { plugin: f.name, reasons: [rejected], unresolvable: true };
        throw new FitError(all, new Map(), new Set([f.name]), new Map(nodes.map((n) => [n.name, refusal])), rejected);
      }
    }
    // A pod that preempted pods tries the node it was nominated to first (Kubernetes' evaluateNominatedNode).
    const nominated = state.pod.pod.status?.nominatedNodeName;
    if (nominated) {
      const node = state.cache.node(nominated);
      if (node?.node !== undefined && this.filterWithNominatedPods(state, node) === undefined) return { node, evaluated: 1, feasible: 1 };
    }
    const wanted = numFeasibleNodesToFind(all, this.percentageOfNodesToScore);
    const feasible: NodeInfo[] = [];
    const refusals = new Map<string, Refusal>();
    const start = this.nextStartNodeIndex % all;
    let evaluated = 0;
    for (let i = 0; i < all && feasible.length < wanted; i++) {
      const node = nodes[(start + i) % all];
      evaluated++;
      const refusal = this.filterWithNominatedPods(state, node);
      if (refusal === undefined) feasible.push(node);
      else refusals.set(node.name, refusal);
    }
    this.nextStartNodeIndex = (start + evaluated) % all;
    if (feasible.length === 0) {
      const plugins = new Set([...refusals.values()].map((r) => r.plugin));
      throw new FitError(all, countReasons(refusals.values()), plugins, refusals);
    }
    if (feasible.length === 1) return { node: feasible[0], evaluated, feasible: 1 };
    return { node: this.best(state, feasible), evaluated, feasible: feasible.length };
  }

  /** Reserves for the chosen node, in order; a plugin that fails has what the earlier ones reserved undone. */
  reserve(state: CycleState, nodeName: string): void {
    const done: BindingPlugin[] = [];
    try {
      for (const plugin of this.binders) {
        plugin.reserve?.(state, nodeName);
        done.push(plugin);
      }
    } catch (error) {
      this.unreserve(state, nodeName, done);
      throw error;
    }
  }

  /** Undoes the reservations, in reverse order (Kubernetes' RunReservePluginsUnreserve). */
  unreserve(state: CycleState, nodeName: string, plugins: readonly BindingPlugin[] = this.binders): void {
    for (const plugin of [...plugins].reverse()) plugin.unreserve?.(state, nodeName);
  }

  /** The pre-bind work, in order; a failure names its plugin as Kubernetes' message does. */
  async preBind(state: CycleState, nodeName: string, signal: AbortSignal): Promise<void> {
    for (const plugin of this.binders) {
      if (!plugin.preBind) continue;
      try {
        await plugin.preBind(state, nodeName, signal);
      } catch (error) {
        throw new Error(`running PreBind plugin "${plugin.name}": ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }
  }

  /** Runs the filters in order on one node; the first that refuses it decides. */
  filter(state: CycleState, node: NodeInfo): Refusal | undefined {
    for (const plugin of this.filters) {
      const outcome = plugin.filter(state, node);
      if (outcome === undefined) continue;
      const reasons = typeof outcome === 'string' ? [outcome] : outcome;
      return { plugin: plugin.name, reasons, unresolvable: plugin.unresolvable?.(reasons) ?? false };
    }
    return undefined;
  }

  /**
   * The filters with the pods nominated to this node at the pod's priority or above counted on it,
   * then (when there were some) without them, as Kubernetes' RunFilterPluginsWithNominatedPods: a
   * lower-priority pod does not take the room a preemption freed, and a pod whose affinity needs a
   * nominated pod does not count on one that is not there yet.
   */
  filterWithNominatedPods(state: CycleState, node: NodeInfo): Refusal | undefined {
    const nominated = state.nominated.forNode(node.name);
    if (nominated.length > 0) {
      const priority = podPriority(state.pod.pod);
      const ahead = nominated.filter((p) => p.key !== state.pod.key && podPriority(p.pod) >= priority);
      if (ahead.length > 0) {
        const withState = state.clone();
        const withNode = node.clone();
        for (const pod of ahead) this.addPod(withState, pod, withNode);
        const refusal = this.filter(withState, withNode);
        if (refusal !== undefined) return refusal;
      }
    }
    return this.filter(state, node);
  }

  /** Places `pod` on a simulated `node`, the plugins' pre-filter work following. */
  addPod(state: CycleState, pod: PodInfo, node: NodeInfo): void {
    node.addPod(pod);
    for (const plugin of this.filters) plugin.addPod?.(state, pod, node);
  }

  /** Takes `pod` off a simulated `node`, the plugins' pre-filter work following. */
  removePod(state: CycleState, pod: PodInfo, node: NodeInfo): void {
    node.removePod(pod.key);
    for (const plugin of this.filters) plugin.removePod?.(state, pod, node);
  }

  /** The weighted sum of every plugin's normalized score, per node. */
  scores(state: CycleState, nodes: readonly NodeInfo[]): number[] {
    const totals = new Array<number>(nodes.length).fill(0);
    for (const plugin of this.scorers) {
      plugin.preScore?.(state, nodes);
      const scores = nodes.map((n) => plugin.score(state, n));
      plugin.normalize?.(state, nodes, scores);
      for (let i = 0; i < nodes.length; i++) totals[i] += plugin.weight * scores[i];
    }
    return totals;
  }

  private best(state: CycleState, nodes: readonly NodeInfo[]): NodeInfo {
    const totals = this.scores(state, nodes);
    let best = 0;
    let ties = 1;
    for (let i = 1; i < nodes.length; i++) {
      if (totals[i] > totals[best]) {
        best = i;
        ties = 1;
      } else if (totals[i] === totals[best]) {
        // Reservoir sampling: each of the tied nodes is taken with the same chance.
        ties++;
        if (this.random() * ties < 1) best = i;
      }
    }
    return nodes[best];
  }
}

import type { NodeInfo } from '../cache/node-info';
import { FitError, NoNodesAvailableError } from './fit-error';
import type { CycleState, FilterPlugin, ScorePlugin } from './plugin';

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
  ) {}

  schedule(state: CycleState): ScheduleResult {
    const nodes = state.cache.nodes();
    const all = nodes.length;
    if (all === 0) throw new NoNodesAvailableError();
    for (const f of this.filters) f.preFilter?.(state);
    const wanted = numFeasibleNodesToFind(all, this.percentageOfNodesToScore);
    const feasible: NodeInfo[] = [];
    const reasons = new Map<string, number>();
    const plugins = new Set<string>();
    const start = this.nextStartNodeIndex % all;
    let evaluated = 0;
    for (let i = 0; i < all && feasible.length < wanted; i++) {
      const node = nodes[(start + i) % all];
      evaluated++;
      let refused = false;
      for (const filter of this.filters) {
        const outcome = filter.filter(state, node);
        if (outcome === undefined) continue;
        refused = true;
        plugins.add(filter.name);
        for (const reason of typeof outcome === 'string' ? [outcome] : outcome) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        break;
      }
      if (!refused) feasible.push(node);
    }
    this.nextStartNodeIndex = (start + evaluated) % all;
    if (feasible.length === 0) throw new FitError(all, reasons, plugins);
    if (feasible.length === 1) return { node: feasible[0], evaluated, feasible: 1 };
    return { node: this.best(state, feasible), evaluated, feasible: feasible.length };
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

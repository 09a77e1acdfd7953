import type { Pod, PodDisruptionBudget } from '@svc/api';
import type { NodeInfo } from '../cache/node-info';
import { podPriority } from '../cache/pod-info';
import { countReasons, fitErrorMessage, type FitError } from '../framework/fit-error';
import type { Framework } from '../framework/framework';
import type { CycleState, Refusal } from '../framework/plugin';
import { pickCandidate, type Candidate } from './candidates';
import { ERR_NO_VICTIMS, isRefusal, PREEMPTION_PLUGIN, selectVictimsOnNode } from './victims';

/** Kubernetes' DefaultPreemptionArgs defaults: dry-run at least 10% of the nodes, and at least 100. */
const MIN_CANDIDATE_NODES_PERCENTAGE = 10;
const MIN_CANDIDATE_NODES_ABSOLUTE = 100;

const NOT_HELPFUL = 'Preemption is not helpful for scheduling';
const NO_VICTIMS: Refusal = { plugin: PREEMPTION_PLUGIN, reasons: [ERR_NO_VICTIMS], unresolvable: true };

/**
 * What preemption decided for a pod that fits nowhere: a node to nominate it to with the pods to
 * evict there; or why not, with whether its old nomination goes (`''`) or stays (undefined).
 */
export type PreemptionResult =
  { candidate: Candidate; message?: undefined; nominatedNodeName: string } | { candidate?: undefined; message: string; nominatedNodeName: '' | undefined };

/** The pod was deleted by preemption and is still going (Kubernetes' podTerminatingByPreemption). */
export function terminatingByPreemption(pod: Pod): boolean {
  if (!pod.metadata?.deletionTimestamp) return false;
  const condition = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
  return condition?.status === 'True' && condition.reason === 'PreemptionByScheduler';
}

/** How many candidates the dry run looks for among `nodes` (Kubernetes' calculateNumCandidates). */
export function numCandidates(nodes: number): number {
  return Math.min(nodes, Math.max(Math.trunc((nodes * MIN_CANDIDATE_NODES_PERCENTAGE) / 100), MIN_CANDIDATE_NODES_ABSOLUTE));
}

/**
 * Kubernetes' DefaultPreemption PostFilter: for a pod no node fits, the nodes where evicting pods of
 * lower priority would make room, the fewest such pods on each, and the best of those nodes.
 * Synchronous against the cache, as the filters are; the evictions are the caller's to make.
 */
export class DefaultPreemption {
  constructor(
    private readonly framework: Framework,
    private readonly budgets: () => readonly PodDisruptionBudget[],
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  /** `pod` is the preemptor as the informer has it now; `fitError` what the filters said of every node. */
  preempt(state: CycleState, pod: Pod, fitError: FitError): PreemptionResult {
    const ineligible = this.ineligibility(state, pod, fitError);
    if (ineligible !== undefined) return { message: `preemption: ${ineligible}`, nominatedNodeName: undefined };
    const all = state.cache.nodes();
    // Only nodes a filter refused for a reason evictions may cure are worth a dry run.
    const potential = all.filter((n) => fitError.refusals.get(n.name)?.unresolvable === false);
    const { candidates, refusals } = this.dryRun(state, potential);
    const best = pickCandidate(candidates, this.now());
    if (best === undefined) {
      const reasons = countReasons(refusals.values());
      if (all.length > refusals.size) reasons.set(NOT_HELPFUL, all.length - refusals.size);
      return { message: `preemption: ${fitErrorMessage(all.length, reasons)}`, nominatedNodeName: '' };
    }
    return { candidate: best, nominatedNodeName: best.nodeName };
  }

  /** Why the pod may not preempt now (Kubernetes' PodEligibleToPreemptOthers), or undefined. */
  private ineligibility(state: CycleState, pod: Pod, fitError: FitError): string | undefined {
    if (pod.spec.preemptionPolicy === 'Never') return 'not eligible due to preemptionPolicy=Never.';
    const nominated = pod.status?.nominatedNodeName;
    if (!nominated) return undefined;
    // A nominated node no eviction can cure any more is given up: the pod may preempt elsewhere.
    if (fitError.refusals.get(nominated)?.unresolvable) return undefined;
    const node = state.cache.node(nominated);
    if (node === undefined) return undefined;
    const priority = podPriority(pod);
    for (const placed of node.pods.values()) {
      // Its earlier victims are still leaving: evicting more now would evict too many.
      if (podPriority(placed.pod) < priority && terminatingByPreemption(placed.pod)) return 'not eligible due to a terminating pod on the nominated node.';
    }
    return undefined;
  }

  /**
   * Victims on each potential node, from a random offset, until enough candidates are found (at
   * least one that violates no budget); each node is tried on copies of itself and of the state.
   */
  private dryRun(state: CycleState, potential: readonly NodeInfo[]): { candidates: Candidate[]; refusals: Map<string, Refusal> } {
    const refusals = new Map<string, Refusal>();
    const nonViolating: Candidate[] = [];
    const violating: Candidate[] = [];
    if (potential.length === 0) return { candidates: [], refusals };
    const wanted = numCandidates(potential.length);
    const offset = Math.floor(this.random() * potential.length);
    const budgets = this.budgets();
    const now = this.now();
    const priority = podPriority(state.pod.pod);
    for (let i = 0; i < potential.length; i++) {
      const node = potential[(offset + i) % potential.length];
      // Most failures in a cluster of equals end here, before copying the node and the state.
      if (!node.hasPodBelow(priority)) {
        refusals.set(node.name, NO_VICTIMS);
        continue;
      }
      const outcome = selectVictimsOnNode(this.framework, state.clone(), node.clone(), budgets, now);
      if (isRefusal(outcome)) {
        refusals.set(node.name, outcome);
        continue;
      }
      if (outcome.pods.length === 0) {
        // Only possible when nominated pods decided the refusal; Kubernetes treats it as an error of that node.
        refusals.set(node.name, { plugin: PREEMPTION_PLUGIN, reasons: [`expected at least one victim pod on node "${node.name}"`], unresolvable: true });
        continue;
      }
      (outcome.pdbViolations === 0 ? nonViolating : violating).push({ nodeName: node.name, victims: outcome });
      if (nonViolating.length > 0 && nonViolating.length + violating.length >= wanted) break;
    }
    return { candidates: [...nonViolating, ...violating], refusals };
  }
}

import type { Pod, PodDisruptionBudget } from '@svc/api';
import { LabelQuery } from '@svc/machinery';
import type { NodeInfo } from '../cache/node-info';
import { podPriority, type PodInfo } from '../cache/pod-info';
import type { Framework } from '../framework/framework';
import type { CycleState, Refusal } from '../framework/plugin';

export const PREEMPTION_PLUGIN = 'DefaultPreemption';
export const ERR_NO_VICTIMS = 'No preemption victims found for incoming pod';

/** The pods to evict from one node so the preemptor fits, most important first, and how many of them a PDB would rather keep. */
export interface Victims {
  pods: PodInfo[];
  pdbViolations: number;
}

/** When the pod started, or now for a pod not started yet (Kubernetes' GetPodStartTime). */
export function podStartTime(pod: Pod, now: number = Date.now()): number {
  const started = pod.status?.startTime;
  const at = started === undefined ? NaN : Date.parse(started);
  return Number.isNaN(at) ? now : at;
}

/** Whether `a` is more important than `b`: higher priority, then running longer (Kubernetes' MoreImportantPod). */
export function moreImportantPod(a: Pod, b: Pod, now: number = Date.now()): boolean {
  const pa = podPriority(a);
  const pb = podPriority(b);
  if (pa !== pb) return pa > pb;
  return podStartTime(a, now) < podStartTime(b, now);
}

/** Sorts most important first, in place. */
export function byImportance(pods: PodInfo[], now: number = Date.now()): PodInfo[] {
  return pods.sort((a, b) => (moreImportantPod(a.pod, b.pod, now) ? -1 : moreImportantPod(b.pod, a.pod, now) ? 1 : 0));
}

// Cached budgets are frozen and replaced on every change, so the object itself keys its parsed selector.
const selectors = new WeakMap<PodDisruptionBudget, LabelQuery>();

/** A budget's selector; a missing, empty or bad one selects no pod here, as in Kubernetes' preemption. */
function budgetSelector(budget: PodDisruptionBudget): LabelQuery {
  let query = selectors.get(budget);
  if (query === undefined) {
    try {
      query = LabelQuery.fromLabelSelector(budget.spec?.selector);
      if (query.isEmpty()) query = LabelQuery.nothing();
    } catch {
      query = LabelQuery.nothing();
    }
    selectors.set(budget, query);
  }
  return query;
}

/**
 * Splits `pods` (order kept) into those whose eviction would take a matching budget below what it
 * allows, counting down each budget's `disruptionsAllowed` as the pods before them are evicted, and
 * the others (Kubernetes' filterPodsWithPDBViolation). A pod a budget already lists among its
 * disrupted pods is not counted against it again.
 */
export function splitByBudgetViolation(pods: readonly PodInfo[], budgets: readonly PodDisruptionBudget[]): [violating: PodInfo[], nonViolating: PodInfo[]] {
  const allowed = budgets.map((b) => b.status?.disruptionsAllowed ?? 0);
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const info of pods) {
    const meta = info.pod.metadata ?? {};
    let violated = false;
    if (meta.labels !== undefined && Object.keys(meta.labels).length > 0) {
      budgets.forEach((budget, i) => {
        if (budget.metadata?.namespace !== meta.namespace) return;
        if (!budgetSelector(budget).matches(meta.labels)) return;
        if (meta.name !== undefined && budget.status?.disruptedPods?.[meta.name] !== undefined) return;
        allowed[i]--;
        if (allowed[i] < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(info);
  }
  return [violating, nonViolating];
}

/**
 * The fewest pods to evict from `node` for the preemptor to fit (Kubernetes' SelectVictimsOnNode):
 * every pod of lower priority taken off, the node filtered, then as many pods as still let the
 * preemptor fit are put back, most important first, those a budget protects before the others.
 * `node` and `state` are copies the search changes. A refusal when no pod may be evicted, or the
 * preemptor would not fit even then.
 */
export function selectVictimsOnNode(
  framework: Framework,
  state: CycleState,
  node: NodeInfo,
  budgets: readonly PodDisruptionBudget[],
  now: number = Date.now(),
): Victims | Refusal {
  const priority = podPriority(state.pod.pod);
  const potential = [...node.pods.values()].filter((p) => podPriority(p.pod) < priority);
  if (potential.length === 0) return { plugin: PREEMPTION_PLUGIN, reasons: [ERR_NO_VICTIMS], unresolvable: true };
  for (const pod of potential) framework.removePod(state, pod, node);
  // Kubernetes does not put back a victim the preemptor's own affinity needs: pods with affinity to
  // lower-priority pods are not a supported configuration.
  const refusal = framework.filterWithNominatedPods(state, node);
  if (refusal !== undefined) return refusal;
  byImportance(potential, now);
  const [violating, nonViolating] = splitByBudgetViolation(potential, budgets);
  const victims: PodInfo[] = [];
  const reprieve = (pod: PodInfo): boolean => {
    framework.addPod(state, pod, node);
    if (framework.filterWithNominatedPods(state, node) === undefined) return true;
    framework.removePod(state, pod, node);
    victims.push(pod);
    return false;
  };
  let pdbViolations = 0;
  for (const pod of violating) if (!reprieve(pod)) pdbViolations++;
  for (const pod of nonViolating) reprieve(pod);
  if (violating.length > 0 && nonViolating.length > 0) byImportance(victims, now);
  return { pods: victims, pdbViolations };
}

export function isRefusal(outcome: Victims | Refusal): outcome is Refusal {
  return (outcome as Refusal).reasons !== undefined;
}

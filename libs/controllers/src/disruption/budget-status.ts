import {
  DISRUPTION_ALLOWED_CONDITION,
  PDB_INSUFFICIENT_PODS,
  PDB_SUFFICIENT_PODS,
  PDB_SYNC_FAILED,
  type Condition,
  type OwnerReference,
  type Pod,
  type PodDisruptionBudget,
} from '@svc/api';
import { jsonEqual, metaTime } from '@svc/machinery';
import { getControllerOf } from '@svc/runtime';
import { isPodReady, isPodTerminating } from '../common/pod-status';
import { valueFromIntOrPercent } from '../deployment/rolling-update-bounds';

export type BudgetStatus = NonNullable<PodDisruptionBudget['status']>;

/**
 * How long an eviction the API server granted counts the pod as disrupted while the pod is still
 * there (Kubernetes' DeletionTimeout): past it, the pod is taken as not deleted after all.
 */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

/** The desired scale of a pod's controller, as found by the caller's caches. */
export interface ControllerScale {
  uid: string;
  replicas: number;
}

/** Finds the scale of the controller a pod's controller reference names; undefined when none of the known kinds has it. */
export type ScaleFinder = (ref: OwnerReference, namespace: string) => Promise<ControllerScale | undefined>;

export interface ExpectedCount {
  expectedPods: number;
  desiredHealthy: number;
  /** Selected pods without a controller: left out of a scale-based count (and reported by an event). */
  unmanagedPods: string[];
}

/**
 * The sum of the desired scales of the selected pods' distinct controllers (Kubernetes'
 * getExpectedScale). A pod whose controller none of the known kinds finds fails the sync, with a
 * message naming the pod; a pod without a controller is only set aside as unmanaged.
 */
export async function expectedScale(pods: readonly Pod[], findScale: ScaleFinder): Promise<{ expected: number; unmanagedPods: string[] }> {
  const scales = new Map<string, number>();
  const unmanagedPods: string[] = [];
  for (const pod of pods) {
    const ref = getControllerOf(pod);
    if (!ref) {
      unmanagedPods.push(pod.metadata?.name ?? '');
      continue;
    }
    if (scales.has(ref.uid)) continue;
    const found = await findScale(ref, pod.metadata?.namespace ?? '');
    if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata?.name ?? '')}`);
    scales.set(found.uid, found.replicas);
  }
  let expected = 0;
  for (const replicas of scales.values()) expected += replicas;
  return { expected, unmanagedPods };
}

/**
 * expectedPods and desiredHealthy of a budget over its selected pods (Kubernetes'
 * getExpectedPodCount): an integer minAvailable counts the selected pods; a percentage, and
 * maxUnavailable, count the controllers' desired scales, percentages rounded up. With neither
 * bound set both are 0, which allows no disruption (expectedPods must be positive).
 */
export async function expectedPodCount(budget: PodDisruptionBudget, pods: readonly Pod[], findScale: ScaleFinder): Promise<ExpectedCount> {
  const { minAvailable, maxUnavailable } = budget.spec ?? {};
  if (maxUnavailable !== undefined) {
    const { expected, unmanagedPods } = await expectedScale(pods, findScale);
    const unavailable = valueFromIntOrPercent(maxUnavailable, expected, true);
    return { expectedPods: expected, desiredHealthy: Math.max(0, expected - unavailable), unmanagedPods };
  }
  if (typeof minAvailable === 'number') return { expectedPods: pods.length, desiredHealthy: minAvailable, unmanagedPods: [] };
  if (typeof minAvailable === 'string') {
    const { expected, unmanagedPods } = await expectedScale(pods, findScale);
    return { expectedPods: expected, desiredHealthy: valueFromIntOrPercent(minAvailable, expected, true), unmanagedPods };
  }
  return { expectedPods: 0, desiredHealthy: 0, unmanagedPods: [] };
}

export interface DisruptedPods {
  /** The entries still in force: pods the API server let go that are neither gone nor being deleted, within the timeout. */
  disruptedPods: Record<string, string>;
  /** When (ms) the first entry kept runs out, to look again then. */
  recheckAt?: number;
  /** Pods whose entry ran out while they are still there (Kubernetes records a NotDeleted event on each). */
  notDeleted: Pod[];
}

/**
 * The budget's disruptedPods as they stand at `now` (Kubernetes' buildDisruptedPodMap): an entry
 * is kept only for a selected pod that is not being deleted and whose time has not run out.
 */
export function currentDisruptedPods(budget: PodDisruptionBudget, pods: readonly Pod[], now: number): DisruptedPods {
  const recorded = budget.status?.disruptedPods ?? {};
  const disruptedPods: Record<string, string> = {};
  const notDeleted: Pod[] = [];
  let recheckAt: number | undefined;
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (isPodTerminating(pod) || !Object.hasOwn(recorded, name)) continue;
    const expires = Date.parse(recorded[name]) + DELETION_TIMEOUT_MS;
    if (!Number.isFinite(expires)) continue;
    if (expires <= now) {
      notDeleted.push(pod);
      continue;
    }
    disruptedPods[name] = recorded[name];
    if (recheckAt === undefined || expires < recheckAt) recheckAt = expires;
  }
  return { disruptedPods, recheckAt, notDeleted };
}

/** Ready selected pods, not being deleted and not already disrupted (Kubernetes' countHealthyPods). */
export function countHealthyPods(pods: readonly Pod[], disruptedPods: Readonly<Record<string, string>>): number {
  let healthy = 0;
  for (const pod of pods) {
    if (isPodTerminating(pod) || Object.hasOwn(disruptedPods, pod.metadata?.name ?? '')) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

/**
 * metav1's SetStatusCondition: the condition of that type replaced, its lastTransitionTime kept
 * unless the status changes; a new condition gets `now`.
 */
export function setStatusCondition(conditions: readonly Condition[] | undefined, next: Omit<Condition, 'lastTransitionTime'>, now: number): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === next.type);
  const current = index >= 0 ? list[index] : undefined;
  const lastTransitionTime = current && current.status === next.status ? current.lastTransitionTime : metaTime(now);
  const condition: Condition = { ...next, lastTransitionTime };
  if (next.observedGeneration === undefined) delete condition.observedGeneration;
  if (index >= 0) list[index] = condition;
  else list.push(condition);
  return list;
}

/** The DisruptionAllowed condition says what disruptionsAllowed says, for the generation observed. */
function conditionUpToDate(status: BudgetStatus): boolean {
  const condition = status.conditions?.find((c) => c.type === DISRUPTION_ALLOWED_CONDITION);
  if (!condition) return false;
  return status.disruptionsAllowed > 0
    ? condition.status === 'True' && condition.reason === PDB_SUFFICIENT_PODS
    : condition.status === 'False' && condition.reason === PDB_INSUFFICIENT_PODS;
}

function sameEntries(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a ?? {});
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a?.[k] === b[k]);
}

export interface BudgetCounts {
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  disruptedPods: Readonly<Record<string, string>>;
}

/**
 * The status the budget should have, or undefined when it has it already (Kubernetes'
 * updatePdbStatus): disruptionsAllowed is what the healthy pods exceed the desired ones by, and 0
 * while no pod is expected, so that a budget seeing its first pods is safe before it is synced.
 */
export function desiredStatus(budget: PodDisruptionBudget, counts: BudgetCounts, now: number): BudgetStatus | undefined {
  const { currentHealthy, desiredHealthy, expectedPods, disruptedPods } = counts;
  const disruptionsAllowed = expectedPods > 0 ? Math.max(0, currentHealthy - desiredHealthy) : 0;
  const generation = budget.metadata?.generation;
  const current = budget.status;
  if (
    current &&
    current.currentHealthy === currentHealthy &&
    current.desiredHealthy === desiredHealthy &&
    current.expectedPods === expectedPods &&
    current.disruptionsAllowed === disruptionsAllowed &&
    sameEntries(current.disruptedPods, disruptedPods) &&
    current.observedGeneration === generation &&
    conditionUpToDate(current)
  ) {
    return undefined;
  }
  const sufficient = disruptionsAllowed > 0;
  const status: BudgetStatus = {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    ...(Object.keys(disruptedPods).length > 0 ? { disruptedPods: { ...disruptedPods } } : {}),
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy,
    expectedPods,
  };
  status.conditions = setStatusCondition(
    current?.conditions,
    {
      type: DISRUPTION_ALLOWED_CONDITION,
      status: sufficient ? 'True' : 'False',
      reason: sufficient ? PDB_SUFFICIENT_PODS : PDB_INSUFFICIENT_PODS,
      message: '',
      observedGeneration: generation,
    },
    now,
  );
  return status;
}

/**
 * The status that stops evictions when the budget could not be computed (Kubernetes' failSafe):
 * the current one with no disruption allowed and DisruptionAllowed False for SyncFailed, naming
 * the error. Undefined when the budget says so already.
 */
export function failSafeStatus(budget: PodDisruptionBudget, message: string, now: number): BudgetStatus | undefined {
  const current: BudgetStatus = budget.status ?? { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  const conditions = setStatusCondition(
    current.conditions,
    { type: DISRUPTION_ALLOWED_CONDITION, status: 'False', reason: PDB_SYNC_FAILED, message, observedGeneration: current.observedGeneration },
    now,
  );
  const next: BudgetStatus = { ...current, disruptionsAllowed: 0, conditions };
  return jsonEqual(next, current) ? undefined : next;
}

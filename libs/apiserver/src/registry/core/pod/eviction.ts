import type { Eviction, Pod, PodCondition, PodDisruptionBudget } from '@svc/api';
import { isConflict, LabelQuery, newForbidden, newInternalError, newNotFound, newTooManyRequests, type StatusError, metaTime } from '@svc/machinery';
import { checkDeletePreconditions } from '../../generic/preconditions';
import type { ResourceRegistries } from '../../registries';
import type { SubresourceCreation, SubresourceRest } from '../../rest';
import type { DeleteRequest } from '../../types';
import { deleteObject } from '../../verbs/delete';

const POD_EVICTION = { group: '', resource: 'pods/eviction' };
/** Evictions granted that the disruption controller has not yet seen go, past which a budget takes no more (Kubernetes' MaxDisruptedPodSize). */
const MAX_DISRUPTED_PODS = 2000;
/** Reads and charges of a budget another eviction raced, before the eviction gives up with the 409. */
const CHARGE_ATTEMPTS = 5;
/** The condition an evicted pod carries while it goes (Kubernetes' PodDisruptionConditions, on since 1.26). */
const DISRUPTION_TARGET = 'DisruptionTarget';
const EVICTION_REASON = 'EvictionByEvictionAPI';
const EVICTION_MESSAGE = 'Eviction API: evicting';

/** The delete an eviction ends with: the Eviction's delete options, and whether it is a dry run. */
interface PodDelete extends DeleteRequest {
  dryRun: boolean;
}

/**
 * Kubernetes' EvictionREST: a pod that is finished, pending or already being deleted is deleted at
 * once; otherwise its disruption budget (at most one may select it) must allow a disruption, which
 * the eviction then takes (`disruptionsAllowed` down by one, the pod in `disruptedPods`) before it
 * deletes the pod at the version it checked. A pod that is not ready is evicted without taking a
 * disruption when the budget says AlwaysAllow, or (IfHealthyBudget, the default) when the budget is
 * healthy. A budget that allows none answers 429 TooManyRequests.
 */
export const podEvictionRest: SubresourceRest = {
  async create(creation) {
    const current = await creation.store.readCurrent(creation.store.key(creation.namespace, creation.name), creation.name);
    if (current === null) throw newNotFound(creation.store.groupResource, creation.name);
    await evict(creation, (await creation.store.atRequestVersion(current)) as Pod);
  },
};

async function evict(creation: SubresourceCreation, pod: Pod): Promise<void> {
  const options = (creation.body as Eviction).deleteOptions ?? {};
  // A dry run asked in the Eviction's own DeleteOptions is the whole request's, as one asked in the query.
  const dryRun = creation.options.dryRun === true || (options.dryRun ?? []).includes('All');
  const requested: PodDelete = {
    gracePeriodSeconds: options.gracePeriodSeconds,
    preconditions: options.preconditions ?? undefined,
    propagationPolicy: options.propagationPolicy,
    dryRun,
  };
  const phase = pod.status?.phase;
  if (pod.metadata?.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending') {
    return markAndDelete(creation, pod, requested);
  }
  // The pod deleted is the pod the budget was checked for: a change in between makes the delete a 409 Conflict.
  const atVersion: PodDelete = { ...requested, preconditions: requested.preconditions ?? { resourceVersion: pod.metadata?.resourceVersion } };
  for (let attempt = 1; ; attempt++) {
    const outcome = await chargeBudget(creation, pod, dryRun).catch((error: unknown) => {
      if (isConflict(error) && attempt < CHARGE_ATTEMPTS) return 'again' as const;
      throw error;
    });
    if (outcome === 'again') continue;
    return markAndDelete(creation, pod, outcome === 'no budget' ? requested : atVersion);
  }
}

/**
 * Kubernetes' addConditionAndDeletePod: the pod first says why it goes (`DisruptionTarget=True`,
 * EvictionByEvictionAPI), on its latest version if the delete's preconditions still hold for it,
 * then is deleted; a resourceVersion precondition moves to the version that write made.
 */
async function markAndDelete(creation: SubresourceCreation, pod: Pod, options: PodDelete): Promise<void> {
  if (options.dryRun || pod.metadata?.deletionTimestamp) return deletePod(creation, options);
  const pods = podsOf(creation.registries);
  for (let attempt = 1, latest = pod; ; attempt++) {
    checkDeletePreconditions(POD_EVICTION, options, latest, creation.name);
    const marked = withDisruptionTarget(latest, creation.w.now);
    if (marked === undefined) return deletePod(creation, options);
    try {
      const written = await pods.updateStatus(marked, { dryRun: creation.options.dryRun === true });
      const wanted = options.preconditions;
      const moved = wanted?.resourceVersion ? { ...options, preconditions: { ...wanted, resourceVersion: written.metadata?.resourceVersion } } : options;
      return await deletePod(creation, moved);
    } catch (error) {
      // The pod changed since it was read (its node agent wrote its status): mark the latest version.
      if (!isConflict(error) || attempt >= CHARGE_ATTEMPTS) throw error;
      latest = await pods.get(creation.namespace, creation.name);
    }
  }
}

/** The pod's delete, as a DELETE of it with the Eviction's options would run, on behalf of the evicting caller. */
async function deletePod(creation: SubresourceCreation, { dryRun, ...request }: PodDelete): Promise<void> {
  await deleteObject(creation.store, creation.namespace, creation.name, request, { ...creation.options, dryRun: creation.options.dryRun === true || dryRun });
}

/** The pod with `DisruptionTarget=True` (EvictionByEvictionAPI), or undefined when it says so already. */
function withDisruptionTarget(pod: Pod, now: Date): Pod | undefined {
  const conditions = pod.status?.conditions ?? [];
  const existing = conditions.find((c) => c.type === DISRUPTION_TARGET);
  if (existing?.status === 'True' && existing.reason === EVICTION_REASON && existing.message === EVICTION_MESSAGE) return undefined;
  const condition: PodCondition = {
    type: DISRUPTION_TARGET,
    status: 'True',
    reason: EVICTION_REASON,
    message: EVICTION_MESSAGE,
    lastTransitionTime: existing?.status === 'True' && existing.lastTransitionTime ? existing.lastTransitionTime : metaTime(now),
  };
  const next = existing ? conditions.map((c) => (c === existing ? condition : c)) : [...conditions, condition];
  return { ...pod, status: { ...pod.status, conditions: next } };
}

/**
 * Takes one disruption of the pod's budget, or says why none is needed; throws the refusal when the
 * budget allows none, and a 409 when another eviction charged the budget first (read again).
 */
async function chargeBudget(creation: SubresourceCreation, pod: Pod, dryRun: boolean): Promise<'no budget' | 'exempt' | 'charged'> {
  const budgets = await budgetsOf(creation.registries, pod);
  if (budgets.length === 0) return 'no budget';
  if (budgets.length > 1) {
    throw newInternalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  }
  const [budget] = budgets;
  if (!isReady(pod) && budgetExempts(budget)) return 'exempt';
  const charged = chargedBudget(budget, pod.metadata?.name ?? '', creation.w.now);
  if (!dryRun) await creation.registries.podDisruptionBudgets?.updateStatus(charged, { dryRun: creation.options.dryRun === true });
  return 'charged';
}

/** The budgets in the pod's namespace whose selector takes the pod (an unset selector takes none, an empty one every pod). */
async function budgetsOf(registries: ResourceRegistries, pod: Pod): Promise<PodDisruptionBudget[]> {
  const budgets = registries.podDisruptionBudgets;
  if (budgets === undefined) return [];
  const all = (await budgets.list(pod.metadata?.namespace ?? '')).items;
  return all.filter((budget) => {
    try {
      return LabelQuery.fromLabelSelector(budget.spec?.selector).matches(pod.metadata?.labels);
    } catch {
      return false;
    }
  });
}

/** A pod that is not ready goes without a disruption when the budget says AlwaysAllow, or (IfHealthyBudget) when it is healthy. */
function budgetExempts(budget: PodDisruptionBudget): boolean {
  const status = budget.status;
  const policy = budget.spec?.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget';
  const healthy = status !== undefined && status.desiredHealthy > 0 && status.currentHealthy >= status.desiredHealthy;
  return policy === 'AlwaysAllow' || healthy;
}

/** The budget with one disruption taken for the pod; throws why it allows none. */
function chargedBudget(budget: PodDisruptionBudget, podName: string, now: Date): PodDisruptionBudget {
  const status = budget.status;
  const budgetName = budget.metadata?.name ?? '';
  if (status === undefined || (status.observedGeneration ?? 0) < (budget.metadata?.generation ?? 0)) {
    throw budgetRefusal(`The disruption budget ${budgetName} is still being processed by the server.`);
  }
  if (status.disruptionsAllowed < 0) throw newForbidden(POD_EVICTION, podName, 'pdb disruptions allowed is negative');
  const disrupted = status.disruptedPods ?? {};
  if (Object.keys(disrupted).length > MAX_DISRUPTED_PODS) {
    throw newForbidden(POD_EVICTION, podName, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (status.disruptionsAllowed === 0) {
    throw budgetRefusal(`The disruption budget ${budgetName} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`);
  }
  return { ...budget, status: { ...status, disruptionsAllowed: status.disruptionsAllowed - 1, disruptedPods: { ...disrupted, [podName]: metaTime(now) } } };
}

/** A 429 that names the budget, as Kubernetes' (kubectl drain waits and asks again). */
function budgetRefusal(message: string): StatusError {
  const error = newTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
  error.status.details = { causes: [{ reason: 'DisruptionBudget', message }] };
  return error;
}

const isReady = (pod: Pod): boolean => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

function podsOf(registries: ResourceRegistries) {
  const pods = registries.pods;
  if (pods === undefined) throw newNotFound({ group: '', resource: 'pods' }, '');
  return pods;
}

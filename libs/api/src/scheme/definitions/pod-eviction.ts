import { isConflict, LabelQuery, newConflict, newInternalError, newForbidden, newTooManyRequests, type StatusError, isRecord } from '@svc/machinery';
import { EvictionSchema, type Eviction, type PodDisruptionBudget } from '../../kinds/policy/pod-disruption-budget';
import type { Pod } from '../../kinds/core/pod';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import type { SubresourceCreate, SubresourceDelete, SubresourceOperations } from '../kind-strategy';
import { as } from './define-kind';

export const EVICTION_GVK = { group: 'policy', version: 'v1', kind: 'Eviction' } as const;
const POD_EVICTION = { group: '', resource: 'pods/eviction' };
/** Evictions granted that the disruption controller has not yet seen go, past which a budget takes no more (Kubernetes' MaxDisruptedPodSize). */
const MAX_DISRUPTED_PODS = 2000;
const PDB = ['policy', 'v1', 'poddisruptionbudgets'] as const;
/** Reads and charges of a budget another eviction raced, before the eviction gives up with the 409. */
const CHARGE_ATTEMPTS = 5;
/** The condition an evicted pod carries while it goes (Kubernetes' PodDisruptionConditions, on since 1.26). */
const DISRUPTION_TARGET = 'DisruptionTarget';
const EVICTION_REASON = 'EvictionByEvictionAPI';
const EVICTION_MESSAGE = 'Eviction API: evicting';

/** The Eviction's DeleteOptions, typed as the pod's delete takes them. */
function validateEviction(body: ApiObject): FieldError[] {
  const options = as<Eviction>(body).deleteOptions;
  if (options === undefined || options === null) return [];
  if (!isRecord(options)) return [fieldErrors.typeInvalid('deleteOptions', options, 'must be an object')];
  const errors: FieldError[] = [];
  const grace = options.gracePeriodSeconds;
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0)) {
    errors.push(fieldErrors.invalid('deleteOptions.gracePeriodSeconds', grace, 'must be greater than or equal to 0'));
  }
  const policy = options.propagationPolicy;
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    errors.push(fieldErrors.notSupported('deleteOptions.propagationPolicy', policy, ['Foreground', 'Background', 'Orphan']));
  }
  const dryRun = options.dryRun as unknown;
  if (dryRun !== undefined && (!Array.isArray(dryRun) || dryRun.some((v) => v !== 'All'))) {
    errors.push(fieldErrors.notSupported('deleteOptions.dryRun', dryRun, ['All']));
  }
  const preconditions = options.preconditions as unknown;
  if (preconditions !== undefined && preconditions !== null) {
    if (!isRecord(preconditions) || Object.values(preconditions).some((v) => v !== undefined && v !== null && typeof v !== 'string')) {
      errors.push(fieldErrors.typeInvalid('deleteOptions.preconditions', preconditions, 'must hold a uid and a resourceVersion as strings'));
    }
  }
  return errors;
}

const isReady = (pod: Pod): boolean => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** A 429 that names the budget, as Kubernetes' (kubectl drain waits and asks again). */
function budgetRefusal(message: string): StatusError {
  const error = newTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
  error.status.details = { causes: [{ reason: 'DisruptionBudget', message }] };
  return error;
}

/** The budgets in the pod's namespace whose selector takes the pod (an unset selector takes none, an empty one every pod). */
async function budgetsOf(pod: Pod, operations: SubresourceOperations): Promise<PodDisruptionBudget[]> {
  const all = (await operations.list(...PDB, pod.metadata?.namespace ?? '')) as PodDisruptionBudget[];
  return all.filter((budget) => {
    try {
      return LabelQuery.fromLabelSelector(budget.spec?.selector).matches(pod.metadata?.labels);
    } catch {
      return false;
    }
  });
}

/**
 * Kubernetes' EvictionREST: a pod that is finished, pending or already being deleted is deleted at
 * once; otherwise its disruption budget (at most one may select it) must allow a disruption, which
 * the eviction then takes (`disruptionsAllowed` down by one, the pod in `disruptedPods`) before it
 * deletes the pod at the version it checked. A pod that is not ready is evicted without taking a
 * disruption when the budget says AlwaysAllow, or (IfHealthyBudget, the default) when the budget is
 * healthy. A budget that allows none answers 429 TooManyRequests.
 */
async function evictPod(body: ApiObject, current: ApiObject, operations: SubresourceOperations): Promise<void> {
  const pod = as<Pod>(current);
  const options = as<Eviction>(body).deleteOptions ?? {};
  // A dry run asked in the Eviction's own DeleteOptions is the whole request's, as one asked in the query.
  const dryRun = operations.dryRun || (options.dryRun ?? []).includes('All');
  const requested: SubresourceDelete = {
    gracePeriodSeconds: options.gracePeriodSeconds,
    preconditions: options.preconditions ?? undefined,
    propagationPolicy: options.propagationPolicy,
    dryRun,
  };
  const phase = pod.status?.phase;
  if (pod.metadata?.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending') {
    return markAndDelete(pod, requested, operations);
  }
  // The pod deleted is the pod the budget was checked for: a change in between makes the delete a 409 Conflict.
  const atVersion: SubresourceDelete = { ...requested, preconditions: requested.preconditions ?? { resourceVersion: pod.metadata?.resourceVersion } };
  for (let attempt = 1; ; attempt++) {
    const outcome = await chargeBudget(pod, operations, dryRun).catch((error: unknown) => {
      if (isConflict(error) && attempt < CHARGE_ATTEMPTS) return 'again' as const;
      throw error;
    });
    if (outcome === 'again') continue;
    return markAndDelete(pod, outcome === 'no budget' ? requested : atVersion, operations);
  }
}

/**
 * Kubernetes' addConditionAndDeletePod: the pod first says why it goes (`DisruptionTarget=True`,
 * EvictionByEvictionAPI), on its latest version if the delete's preconditions still hold for it,
 * then is deleted; a resourceVersion precondition moves to the version that write made.
 */
async function markAndDelete(pod: Pod, options: SubresourceDelete, operations: SubresourceOperations): Promise<void> {
  if (options.dryRun || pod.metadata?.deletionTimestamp) return operations.deleteSelf(options);
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  for (let attempt = 1, latest = pod; ; attempt++) {
    const wanted = options.preconditions;
    if (wanted?.uid && wanted.uid !== latest.metadata?.uid) {
      throw newConflict(POD_EVICTION, name, `Precondition failed: UID in precondition: ${wanted.uid}, UID in object meta: ${latest.metadata?.uid ?? ''}`);
    }
    if (wanted?.resourceVersion && wanted.resourceVersion !== latest.metadata?.resourceVersion) {
      throw newConflict(
        POD_EVICTION,
        name,
        `Precondition failed: ResourceVersion in precondition: ${wanted.resourceVersion}, ResourceVersion in object meta: ${latest.metadata?.resourceVersion ?? ''}`,
      );
    }
    const marked = withDisruptionTarget(latest, operations.now);
    if (marked === undefined) return operations.deleteSelf(options);
    try {
      const written = await operations.updateStatus('', 'v1', 'pods', marked);
      const moved = wanted?.resourceVersion ? { ...options, preconditions: { ...wanted, resourceVersion: written.metadata?.resourceVersion } } : options;
      return await operations.deleteSelf(moved);
    } catch (error) {
      // The pod changed since it was read (its node agent wrote its status): mark the latest version.
      if (!isConflict(error) || attempt >= CHARGE_ATTEMPTS) throw error;
      latest = as<Pod>(await operations.get('', 'v1', 'pods', namespace, name));
    }
  }
}

/** The pod with `DisruptionTarget=True` (EvictionByEvictionAPI), or undefined when it says so already. */
function withDisruptionTarget(pod: Pod, now: Date): Pod | undefined {
  const conditions = pod.status?.conditions ?? [];
  const existing = conditions.find((c) => c.type === DISRUPTION_TARGET);
  if (existing?.status === 'True' && existing.reason === EVICTION_REASON && existing.message === EVICTION_MESSAGE) return undefined;
  const condition = {
    type: DISRUPTION_TARGET,
    status: 'True' as const,
    reason: EVICTION_REASON,
    message: EVICTION_MESSAGE,
    lastTransitionTime: existing?.status === 'True' && existing.lastTransitionTime ? existing.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  const next = existing ? conditions.map((c) => (c === existing ? condition : c)) : [...conditions, condition];
  return { ...pod, status: { ...pod.status, conditions: next } };
}

/**
 * Takes one disruption of the pod's budget, or says why none is needed; throws the refusal when the
 * budget allows none, and a 409 when another eviction charged the budget first (read again).
 */
async function chargeBudget(pod: Pod, operations: SubresourceOperations, dryRun: boolean): Promise<'no budget' | 'exempt' | 'charged'> {
  const budgets = await budgetsOf(pod, operations);
  if (budgets.length === 0) return 'no budget';
  if (budgets.length > 1) {
    throw newInternalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  }
  const [budget] = budgets;
  const status = budget.status;
  if (!isReady(pod)) {
    const policy = budget.spec?.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget';
    const healthy = status !== undefined && status.desiredHealthy > 0 && status.currentHealthy >= status.desiredHealthy;
    if (policy === 'AlwaysAllow' || healthy) return 'exempt';
  }
  const name = pod.metadata?.name ?? '';
  const budgetName = budget.metadata?.name ?? '';
  if (status === undefined || (status.observedGeneration ?? 0) < (budget.metadata?.generation ?? 0)) {
    throw budgetRefusal(`The disruption budget ${budgetName} is still being processed by the server.`);
  }
  if (status.disruptionsAllowed < 0) throw newForbidden(POD_EVICTION, name, 'pdb disruptions allowed is negative');
  const disrupted = status.disruptedPods ?? {};
  if (Object.keys(disrupted).length > MAX_DISRUPTED_PODS) {
    throw newForbidden(POD_EVICTION, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (status.disruptionsAllowed === 0) {
    throw budgetRefusal(`The disruption budget ${budgetName} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`);
  }
  const taken = operations.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const charged = { ...budget, status: { ...status, disruptionsAllowed: status.disruptionsAllowed - 1, disruptedPods: { ...disrupted, [name]: taken } } };
  if (!dryRun) await operations.updateStatus(...PDB, charged);
  return 'charged';
}

/** The pod's `eviction` subresource. */
export const podEviction: SubresourceCreate = {
  kind: EVICTION_GVK,
  schema: EvictionSchema,
  validate: validateEviction,
  perform: evictPod,
};

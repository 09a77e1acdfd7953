import type { OwnerReference, Pod, PodDisruptionBudget } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, type ResourceClient } from '@svc/client';
import { errorMessage, groupOfApiVersion, isConflict, isNotFound, LabelQuery } from '@svc/machinery';
import {
  EventRecorder,
  getControllerOf,
  Reconciler,
  type CacheReader,
  type MetaObject,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type Result,
} from '@svc/runtime';
import {
  countHealthyPods,
  currentDisruptedPods,
  desiredStatus,
  expectedPodCount,
  failSafeStatus,
  type BudgetStatus,
  type ControllerScale,
} from './budget-status';
import { PodDisruptionChanged } from './pod-disruption-changes';
import { ScaleResolver } from './scale-resolver';

const COMPONENT = 'controllermanager';

// Cached objects are frozen and replaced on every change, so the object itself keys its parsed selector.
const selectors = new WeakMap<PodDisruptionBudget, LabelQuery>();

/** The budget's pod selector: none selects no pod, `{}` every pod of the namespace, a bad one none. */
function budgetSelector(budget: PodDisruptionBudget): LabelQuery {
  let query = selectors.get(budget);
  if (query === undefined) {
    try {
      query = LabelQuery.fromLabelSelector(budget.spec?.selector);
    } catch {
      query = LabelQuery.nothing();
    }
    selectors.set(budget, query);
  }
  return query;
}

function isKind(ref: OwnerReference, kind: string, groups: readonly string[]): boolean {
  return ref.kind === kind && groups.includes(groupOfApiVersion(ref.apiVersion));
}

const APPS = ['apps', 'extensions'];

/** The budgets of the pod's namespace whose selector matches it. */
export function budgetsSelecting(cache: CacheReader, pod: Pod): Request[] {
  const namespace = pod.metadata?.namespace;
  if (!namespace) return [];
  return cache
    .list(BUILTIN_RESOURCES.podDisruptionBudgets, { namespace })
    .filter((b) => budgetSelector(b).matches(pod.metadata?.labels))
    .map((b) => ({ namespace, name: b.metadata!.name! }));
}

/**
 * Kubernetes' disruption controller: keeps each PodDisruptionBudget's status (how many of its
 * pods are healthy, how many must be, how many may be disrupted now) from the pods it selects and
 * their controllers' scales, which the API server's eviction reads. Pods the API server let go
 * (status.disruptedPods) count as disrupted until they are deleted or two minutes pass. Reads only
 * the shared caches; writes the status subresource only when it changed.
 */
@Reconciler({
  name: 'disruption',
  for: BUILTIN_RESOURCES.podDisruptionBudgets,
  // The controllers whose scale a budget counts.
  reads: [BUILTIN_RESOURCES.replicaSets, BUILTIN_RESOURCES.deployments, BUILTIN_RESOURCES.replicationControllers],
  // A pod change wakes every budget of its namespace selecting it (before and after the change:
  // the framework maps both objects of an update).
  watches: [
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod, _r: unknown, cache) => budgetsSelecting(cache, pod),
      predicates: [PodDisruptionChanged],
    },
  ],
})
export class DisruptionReconciler implements Reconcile {
  private readonly budgetClient: ResourceClient<PodDisruptionBudget>;
  private readonly events: EventRecorder;
  private readonly scales: ScaleResolver;

  constructor(client: Client) {
    this.budgetClient = client.podDisruptionBudgets;
    this.events = new EventRecorder(client, { component: COMPONENT });
    this.scales = new ScaleResolver(client);
  }

  async reconcile({ namespace, name }: Request, { cache }: ReconcileContext): Promise<Result> {
    if (!namespace) return {};
    const budget = cache.get(BUILTIN_RESOURCES.podDisruptionBudgets, { namespace, name });
    if (!budget) return {};
    try {
      return await this.trySync(cache, budget);
    } catch (error) {
      // Someone else (an eviction) wrote the status meanwhile: again on the newer object, no fail-safe.
      if (isConflict(error)) throw error;
      // Deleted meanwhile: its deletion is on its way to the cache.
      if (isNotFound(error)) return {};
      await this.failSafe(budget, errorMessage(error));
      return {};
    }
  }

  private async trySync(cache: CacheReader, budget: PodDisruptionBudget): Promise<Result> {
    const namespace = budget.metadata?.namespace ?? '';
    const pods = cache.list(BUILTIN_RESOURCES.pods, { namespace, labelSelector: budgetSelector(budget) });
    if (pods.length === 0) await this.events.normal(this.subject(budget), 'NoPods', 'No matching pods found');

    let counts;
    try {
      counts = await expectedPodCount(budget, pods, (ref, ns) => this.findScale(cache, ref, ns));
    } catch (error) {
      await this.events.warning(
        this.subject(budget),
        'CalculateExpectedPodCountFailed',
        `Failed to calculate the number of expected pods: ${errorMessage(error)}`,
      );
      throw error;
    }
    if (counts.unmanagedPods.length > 0) {
      await this.events.warning(
        this.subject(budget),
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${JSON.stringify(budget.spec?.selector ?? null)}) were found to be unmanaged. ` +
          'As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. ' +
          'To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.',
      );
    }

    const now = Date.now();
    const { disruptedPods, recheckAt, notDeleted } = currentDisruptedPods(budget, pods, now);
    for (const pod of notDeleted) {
      await this.events.warning(
        { apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata },
        'NotDeleted',
        `Pod was expected by PDB ${namespace}/${budget.metadata?.name ?? ''} to be deleted but it wasn't`,
      );
    }
    const currentHealthy = countHealthyPods(pods, disruptedPods);
    const status = desiredStatus(budget, { currentHealthy, desiredHealthy: counts.desiredHealthy, expectedPods: counts.expectedPods, disruptedPods }, now);
    if (status) await this.writeStatus(budget, status);
    return recheckAt === undefined ? {} : { requeueAfter: Math.max(1, recheckAt - Date.now()) };
  }

  /** Evictions stop while the budget cannot be computed: it says no disruption is allowed, and why. */
  private async failSafe(budget: PodDisruptionBudget, message: string): Promise<void> {
    const status = failSafeStatus(budget, message, Date.now());
    if (!status) return;
    await this.writeStatus(budget, status).catch(ignoreNotFound);
  }

  /** The status subresource, at the cached object's resourceVersion: an eviction's write in between makes a conflict, never a loss. */
  private async writeStatus(budget: PodDisruptionBudget, status: BudgetStatus): Promise<void> {
    await this.budgetClient.updateStatus(
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: budget.metadata, spec: budget.spec, status },
      { namespace: budget.metadata?.namespace },
    );
  }

  private subject(budget: PodDisruptionBudget): MetaObject {
    return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: budget.metadata };
  }

  /**
   * The desired scale of the controller a pod's controller reference names (Kubernetes' finders):
   * a ReplicaSet's own replicas, or its Deployment's when a Deployment controls it; a
   * ReplicationController's replicas (each read from the caches and the very object named, same
   * uid); else the `scale` of any other kind that has one, custom resources included.
   */
  private async findScale(cache: CacheReader, ref: OwnerReference, namespace: string): Promise<ControllerScale | undefined> {
    if (isKind(ref, 'ReplicaSet', APPS)) {
      const rs = cache.get(BUILTIN_RESOURCES.replicaSets, { namespace, name: ref.name });
      if (!rs || rs.metadata?.uid !== ref.uid) return undefined;
      const owner = getControllerOf(rs);
      if (owner?.kind !== 'Deployment') return { uid: ref.uid, replicas: rs.spec?.replicas ?? 1 };
      if (!isKind(owner, 'Deployment', APPS)) return undefined;
      const deployment = cache.get(BUILTIN_RESOURCES.deployments, { namespace, name: owner.name });
      if (!deployment || deployment.metadata?.uid !== owner.uid) return undefined;
      return { uid: owner.uid, replicas: deployment.spec?.replicas ?? 1 };
    }
    if (isKind(ref, 'ReplicationController', [''])) {
      const rc = cache.get(BUILTIN_RESOURCES.replicationControllers, { namespace, name: ref.name });
      if (!rc || rc.metadata?.uid !== ref.uid) return undefined;
      return { uid: ref.uid, replicas: rc.spec?.replicas ?? 1 };
    }
    return this.scales.find(ref, namespace);
  }
}

import type { Deployment, OwnerReference, Pod, PodDisruptionBudget, ReplicaSet, ReplicationController } from '@svc/api';
import { BUILTIN_RESOURCES, Client, type ResourceClient } from '@svc/client';
import type { Lister } from '@svc/informers';
import { errorMessage, groupOfApiVersion, isConflict, isNotFound, LabelQuery } from '@svc/machinery';
import { EventRecorder, Manager, Reconciler, type MetaObject, type Reconcile, type Request, type Result } from '@svc/runtime';
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
  // A pod change wakes every budget of its namespace selecting it (before and after the change:
  // the framework maps both objects of an update).
  watches: [
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod: Pod, r: DisruptionReconciler) => r.budgetsSelecting(pod),
      predicates: [PodDisruptionChanged],
    },
  ],
})
export class DisruptionReconciler implements Reconcile {
  private readonly budgets: Lister<PodDisruptionBudget>;
  private readonly pods: Lister<Pod>;
  private readonly replicaSets: Lister<ReplicaSet>;
  private readonly deployments: Lister<Deployment>;
  private readonly replicationControllers: Lister<ReplicationController>;
  private readonly budgetClient: ResourceClient<PodDisruptionBudget>;
  private readonly events: EventRecorder;
  private readonly scales: ScaleResolver;

  constructor(manager: Manager, client: Client) {
    this.budgets = manager.informerFor(BUILTIN_RESOURCES.podDisruptionBudgets).lister();
    this.pods = manager.informerFor(BUILTIN_RESOURCES.pods).lister();
    this.replicaSets = manager.informerFor(BUILTIN_RESOURCES.replicaSets).lister();
    this.deployments = manager.informerFor(BUILTIN_RESOURCES.deployments).lister();
    this.replicationControllers = manager.informerFor(BUILTIN_RESOURCES.replicationControllers).lister();
    this.budgetClient = client.podDisruptionBudgets;
    this.events = new EventRecorder(client, { component: COMPONENT });
    this.scales = new ScaleResolver(client);
  }

  /** The budgets of the pod's namespace whose selector matches it. */
  budgetsSelecting(pod: Pod): Request[] {
    const namespace = pod.metadata?.namespace;
    if (!namespace) return [];
    return this.budgets
      .namespace(namespace)
      .list()
      .filter((b) => budgetSelector(b).matches(pod.metadata?.labels))
      .map((b) => ({ namespace, name: b.metadata!.name! }));
  }

  async reconcile({ namespace, name }: Request): Promise<Result> {
    if (!namespace) return {};
    const budget = this.budgets.namespace(namespace).get(name);
    if (!budget) return {};
    try {
      return await this.trySync(budget);
    } catch (error) {
      // Someone else (an eviction) wrote the status meanwhile: again on the newer object, no fail-safe.
      if (isConflict(error)) throw error;
      // Deleted meanwhile: its deletion is on its way to the cache.
      if (isNotFound(error)) return {};
      await this.failSafe(budget, errorMessage(error));
      return {};
    }
  }

  private async trySync(budget: PodDisruptionBudget): Promise<Result> {
    const namespace = budget.metadata?.namespace ?? '';
    const pods = this.pods.namespace(namespace).list(budgetSelector(budget));
    if (pods.length === 0) await this.events.normal(this.subject(budget), 'NoPods', 'No matching pods found');

    let counts;
    try {
      counts = await expectedPodCount(budget, pods, (ref, ns) => this.findScale(ref, ns));
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
    try {
      await this.writeStatus(budget, status);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
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
  private async findScale(ref: OwnerReference, namespace: string): Promise<ControllerScale | undefined> {
    if (isKind(ref, 'ReplicaSet', APPS)) {
      const rs = this.replicaSets.namespace(namespace).get(ref.name);
      if (!rs || rs.metadata?.uid !== ref.uid) return undefined;
      const owner = rs.metadata?.ownerReferences?.find((r) => r.controller === true);
      if (owner?.kind !== 'Deployment') return { uid: ref.uid, replicas: rs.spec?.replicas ?? 1 };
      if (!isKind(owner, 'Deployment', APPS)) return undefined;
      const deployment = this.deployments.namespace(namespace).get(owner.name);
      if (!deployment || deployment.metadata?.uid !== owner.uid) return undefined;
      return { uid: owner.uid, replicas: deployment.spec?.replicas ?? 1 };
    }
    if (isKind(ref, 'ReplicationController', [''])) {
      const rc = this.replicationControllers.namespace(namespace).get(ref.name);
      if (!rc || rc.metadata?.uid !== ref.uid) return undefined;
      return { uid: ref.uid, replicas: rc.spec?.replicas ?? 1 };
    }
    return this.scales.find(ref, namespace);
  }
}

import type { Pod, ReplicaSet } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, isWithdrawn, type ResourceClient } from '@svc/client';
import { isNamespaceTerminating, isConflict, isNotFound, isTimeout, type LabelQuery, errorMessage } from '@svc/machinery';
import {
  EventRecorder,
  getControllerOf,
  Reconciler,
  type CacheReader,
  type KeyExpectations,
  type MetaObject,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type Result,
} from '@svc/runtime';
import { isPodActive, isPodTerminating } from '../common/pod-status';
import { claimPods } from '../common/claim-pods';
import { REPLICA_SETS, type ReplicaSetViews, type ReplicatedKind } from './replicated-kind';
import { orphanPodChanged } from '../common/orphan-pod-watch';
import { replicaSetsForOrphan } from './replicasets-for-orphan';
import { orphanPodIndexKey, POD_CONTROLLER_UID_INDEX, podControllerUidIndex } from '../common/pod-controller-index';
import { podFromTemplate } from '../common/pod-from-template';
import { podsToDelete, type RankingOptions } from '../common/pod-ranking';
import { RateLimitedEvents } from '../common/rate-limited-events';
import { ReplicaSetOptions } from './replicaset-options';
import { controllerSelector } from '../common/controller-selector';
import { calculateStatus, nextAvailabilityCheckMs, statusNeedsUpdate, type ReplicaSetStatus } from './replicaset-status';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../common/slow-start-batch';

/** The controller's name: metrics, logs, and the `--concurrent-replicaset-syncs` flag. */
export const REPLICASET_CONTROLLER_NAME = 'replicaset';

/** Pods created or deleted per sync at most (Kubernetes' BurstReplicas); the rest waits for the next sync. */
export const BURST_REPLICAS = 500;

/** How soon a sync capped by {@link BURST_REPLICAS} runs again (after its own writes show in the cache). */
const BURST_REQUEUE_MS = 1;

/** Slack after `minReadySeconds` before counting availability again, so that the pod surely counts. */
const AVAILABILITY_SLACK_MS = 50;

/** One sync's reads (the reconcile's cache, as the ReplicaSets of the reconciled kind and the pods), and what stops its creates. */
interface SyncView {
  cache: CacheReader;
  replicaSets: ReplicaSetViews;
  /** Aborts once the cache shows the ReplicaSet being deleted: no more pods are made for it. */
  deleting: AbortSignal;
  withdrawOn: ReconcileContext['withdrawOn'];
}

/**
 * Kubernetes' ReplicaSet controller: keeps `spec.replicas` active pods (not finished, not being
 * deleted) controlled by each ReplicaSet, adopting matching orphans and releasing pods whose labels
 * stopped matching, and reports the counts in its status.
 *
 * Reads come from the shared caches (pods by controller uid through an index, so a sync costs the
 * ReplicaSet's own pods, not the namespace's). It keeps Kubernetes' expectations: before creating or
 * deleting pods it records how many creations and which deletions it awaits, and until the pod
 * informer has shown them (or 5 minutes pass) a sync of that ReplicaSet only writes its status; so
 * a create still in flight, or one made in an earlier term of leadership, is never made twice.
 * Besides, the framework makes each sync wait (briefly) until the caches show the writes the last
 * sync of the same ReplicaSet got answers for.
 */
@Reconciler({
  name: REPLICASET_CONTROLLER_NAME,
  for: BUILTIN_RESOURCES.replicaSets,
  owns: [BUILTIN_RESOURCES.pods],
  indexes: [podControllerUidIndex],
  // A pod without a controller wakes the ReplicaSets of its namespace that select it, to be adopted.
  watches: [
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod, _r: unknown, cache) => replicaSetsForOrphan(REPLICA_SETS.views(cache), pod),
      predicates: [orphanPodChanged],
    },
  ],
})
export class ReplicaSetReconciler implements Reconcile {
  private readonly pods: ResourceClient<Pod>;
  private readonly client: Client;
  private readonly events: RateLimitedEvents;
  private readonly ranking: Omit<RankingOptions, 'nowMs'>;
  private readonly countTerminating: boolean;
  private readonly kind: ReplicatedKind;
  /** The kind a reconciler class keeps; a subclass for another kind says so here. */
  protected static readonly replicatedKind: ReplicatedKind = REPLICA_SETS;

  constructor(client: Client, options: ReplicaSetOptions) {
    const kind = new.target.replicatedKind;
    this.kind = kind;
    this.pods = client.pods;
    this.client = client;
    // Written in the background; the manager's client lets them finish when the controller stops.
    this.events = new RateLimitedEvents(new EventRecorder(client, { component: kind.component }));
    this.ranking = { deletionCost: options.deletionCost, logarithmic: options.logarithmicScaleDown };
    this.countTerminating = kind.countsTerminating && options.countTerminating;
  }

  async reconcile({ namespace = '', name }: Request, { cache, expectations, deleting, withdrawOn }: ReconcileContext): Promise<Result> {
    const view: SyncView = { cache, replicaSets: this.kind.views(cache), deleting, withdrawOn };
    const rs = view.replicaSets.namespace(namespace).get(name);
    // Gone: its pods name it as controller owner, so the garbage collector removes them.
    if (!rs) return {};
    const selector = controllerSelector(rs);
    if (!selector) return {};

    const pods = await claimPods(this.candidatePods(view, rs), {
      rs,
      owner: this.kind,
      selector,
      pods: this.pods,
      canAdopt: () => this.recheckForAdoption(rs),
    });
    // Counted from the same view as the active pods, before this sync deletes any.
    const terminating = this.countTerminating ? this.terminatingPods(view, rs, selector).length : undefined;

    // Until the pods it asked for (or asked to go) show in the cache, the cache undercounts (or
    // overcounts) them: only the status is written meanwhile.
    const needsSync = expectations.satisfied();
    let failure: { error: unknown } | undefined;
    let capped = false;
    if (needsSync && !rs.metadata?.deletionTimestamp) {
      try {
        capped = await this.manageReplicas(view, rs, pods, expectations);
      } catch (error) {
        failure = { error };
      }
    }

    const nowMs = Date.now();
    const status = calculateStatus(rs, pods, failure && { message: errorMessage(failure.error) }, nowMs, terminating);
    // Pods this sync created or deleted are on their way to the cache, and each one's arrival syncs
    // again: a status written now would be stale at once, so the sync that sees them writes it.
    const ownChangesUnseen = needsSync && !failure && !expectations.satisfied();
    if (!ownChangesUnseen) await this.writeStatus(rs, status);
    if (failure) throw failure.error;
    if (capped) return { requeueAfter: BURST_REQUEUE_MS };
    // Pod events wake it as the expectations are met; their lapse needs a wake-up of its own.
    const waits = [nextAvailabilityCheckMs(rs, pods, nowMs), expectations.expiresInMs()].filter((w): w is number => w !== undefined);
    return waits.length > 0 ? { requeueAfter: Math.min(...waits) + AVAILABILITY_SLACK_MS } : {};
  }

  /** Active pods of the namespace this ReplicaSet controls or could adopt; pods of other controllers are not read. */
  private candidatePods({ cache }: SyncView, rs: ReplicaSet): Pod[] {
    const namespace = rs.metadata?.namespace ?? '';
    const owned = cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, rs.metadata?.uid ?? '');
    const orphans = cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, orphanPodIndexKey(namespace));
    const candidates: Pod[] = [];
    for (const pod of owned) if (pod.metadata?.namespace === namespace && isPodActive(pod)) candidates.push(pod);
    for (const pod of orphans) if (isPodActive(pod)) candidates.push(pod);
    return candidates;
  }

  /** Pods this ReplicaSet controls that are being deleted and have not finished (they do not count as replicas). */
  private terminatingPods({ cache }: SyncView, rs: ReplicaSet, selector: LabelQuery): Pod[] {
    return cache
      .byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, rs.metadata?.uid ?? '')
      .filter(
        (pod) =>
          pod.metadata?.namespace === rs.metadata?.namespace &&
          isPodTerminating(pod) &&
          pod.status?.phase !== 'Succeeded' &&
          pod.status?.phase !== 'Failed' &&
          selector.matches(pod.metadata?.labels),
      );
  }

  /**
   * Creates or deletes pods towards `spec.replicas`, at most {@link BURST_REPLICAS} per sync. True
   * when the sync was capped and more remains to do; throws the first failure.
   */
  private async manageReplicas(view: SyncView, rs: ReplicaSet, pods: readonly Pod[], expectations: KeyExpectations): Promise<boolean> {
    const diff = pods.length - (rs.spec.replicas ?? 1);
    if (diff < 0) {
      const count = Math.min(-diff, BURST_REPLICAS);
      // Raised before the first create is sent: a pod may show in the cache before its create is answered.
      expectations.expectCreations(count);
      let attempted = 0;
      // A sync that began before its ReplicaSet started going away makes no more pods for it (the
      // garbage collector may be orphaning or deleting those it has): creates still waiting for the
      // client's rate limiter are withdrawn, later ones not tried.
      const outcome = await view.withdrawOn(view.deleting, () =>
        slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, () => {
          attempted++;
          return this.createPod(view, rs, expectations);
        }),
      );
      // Creates the slow start never tried will never be observed.
      for (let i = attempted; i < count; i++) expectations.creationObserved();
      if (outcome.error !== undefined) throw outcome.error instanceof Error ? outcome.error : new Error(errorMessage(outcome.error));
      return -diff > count;
    }
    if (diff > 0) {
      const count = Math.min(diff, BURST_REPLICAS);
      const victims = podsToDelete(pods, this.relatedPods(view, rs, pods), count, { ...this.ranking, nowMs: Date.now() });
      expectations.expectDeletions(victims);
      const results = await Promise.allSettled(victims.map((pod) => this.deletePod(rs, pod, expectations)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      return diff > count;
    }
    return false;
  }

  private async createPod(view: SyncView, rs: ReplicaSet, expectations: KeyExpectations): Promise<void> {
    if (view.deleting.aborted) {
      expectations.creationObserved();
      return;
    }
    try {
      const pod = await this.pods.create(podFromTemplate(rs, this.kind), { namespace: rs.metadata?.namespace });
      this.events.emit(this.eventSubject(rs), 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
    } catch (error) {
      // A create that failed makes no pod, unless it timed out: that one stays awaited (until observed,
      // or the expectations lapse).
      if (!mayHaveTakenEffect(error)) expectations.creationObserved();
      // Withdrawn because the ReplicaSet is going: nothing failed.
      if (isWithdrawn(error) && view.deleting.aborted) return;
      // Every create would fail in a namespace that is going away, and the namespace takes the ReplicaSet with it.
      if (isNamespaceTerminating(error)) return;
      this.events.emit(this.eventSubject(rs), 'Warning', 'FailedCreate', `Error creating: ${errorMessage(error)}`);
      throw error;
    }
  }

  private async deletePod(rs: ReplicaSet, pod: Pod, expectations: KeyExpectations): Promise<void> {
    const name = pod.metadata?.name ?? '';
    try {
      await this.pods.delete(name, { namespace: pod.metadata?.namespace });
      this.events.emit(this.eventSubject(rs), 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    } catch (error) {
      // As Kubernetes does: the informer will not observe this deletion (or already did).
      expectations.deletionObserved(pod);
      if (isNotFound(error)) return;
      this.events.emit(this.eventSubject(rs), 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(error)}`);
      throw error;
    }
  }

  /**
   * The active pods of every ReplicaSet sharing this one's controller owner (a Deployment's old and
   * new ReplicaSets), for ranking pods by how crowded their node is. A ReplicaSet without a
   * controller has none, as in Kubernetes.
   */
  private relatedPods({ cache, replicaSets }: SyncView, rs: ReplicaSet, own: readonly Pod[]): Pod[] {
    const owner = getControllerOf(rs);
    if (!owner) return [];
    const related: Pod[] = [...own];
    for (const sibling of replicaSets.namespace(rs.metadata?.namespace ?? '').list()) {
      if (sibling.metadata?.uid === rs.metadata?.uid || getControllerOf(sibling)?.uid !== owner.uid) continue;
      for (const pod of cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, sibling.metadata?.uid ?? '')) {
        if (isPodActive(pod)) related.push(pod);
      }
    }
    return related;
  }

  /**
   * Before adopting, an uncached read confirms the ReplicaSet is still this one and not being
   * deleted (a cached view may miss a deletion, and adopting then would hand pods to a dying owner).
   */
  private async recheckForAdoption(rs: ReplicaSet): Promise<void> {
    const name = rs.metadata?.name ?? '';
    const fresh = await this.kind.get(this.client, rs.metadata?.namespace ?? '', name);
    if (fresh.metadata?.uid !== rs.metadata?.uid) {
      throw new Error(`original ReplicaSet ${rs.metadata?.namespace}/${name} is gone: got uid ${fresh.metadata?.uid}, wanted ${rs.metadata?.uid}`);
    }
    if (fresh.metadata?.deletionTimestamp) {
      throw new Error(`ReplicaSet ${rs.metadata?.namespace}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
  }

  /** Cached objects may lack their kind; the Event names it. */
  private eventSubject(rs: ReplicaSet): MetaObject {
    return { apiVersion: this.kind.apiVersion, kind: this.kind.kind, metadata: rs.metadata };
  }

  /**
   * Writes the status when it changed, with observedGeneration; on a conflict once more on the
   * server's current object (Kubernetes retries once, then leaves it to the next sync).
   */
  private async writeStatus(rs: ReplicaSet, status: ReplicaSetStatus): Promise<void> {
    if (!statusNeedsUpdate(rs, status)) return;
    const desired: ReplicaSetStatus = { ...status, observedGeneration: rs.metadata?.generation };
    const namespace = rs.metadata?.namespace ?? '';
    try {
      await this.kind.updateStatus(this.client, rs, desired);
    } catch (error) {
      // Gone meanwhile (deleted with its owner): its deletion is on its way to the cache.
      if (isNotFound(error)) return;
      if (!isConflict(error)) throw error;
      const fresh = await this.kind.get(this.client, namespace, rs.metadata?.name ?? '').catch(ignoreNotFound);
      if (fresh) await this.kind.updateStatus(this.client, fresh, desired);
    }
  }
}

/**
 * A timeout (the server's 504, or no answer within the client's deadline): the server may still
 * make the pod. Any other failure, a withdrawal included, made none; a broken connection is counted
 * so too, as Kubernetes does, rather than holding the ReplicaSet for the expectations' lifetime.
 */
function mayHaveTakenEffect(error: unknown): boolean {
  return !isWithdrawn(error) && isTimeout(error);
}

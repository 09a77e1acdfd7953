import type { ControllerRevision, Pod, StatefulSet } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound } from '@svc/client';
import { errorMessage, isConflict, isNotFound, LabelQuery } from '@svc/machinery';
import { EventRecorder, getControllerOf, Reconciler, type CacheReader, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { isPodTerminating } from '../common/pod-status';
import { ControllerHistory, revisionsBeyondLimit } from '../history';
import { claimPods } from '../common/claim-pods';
import { orphanPodChanged } from '../common/orphan-pod-watch';
import { orphanPodIndexKey, POD_CONTROLLER_UID_INDEX, podControllerUidIndex } from '../common/pod-controller-index';
import { RateLimitedEvents } from '../common/rate-limited-events';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../common/slow-start-batch';
import { identityMatches, isMemberOf, newStatefulPod, podOrdinal, podRevision, startOrdinal, STATEFUL_SET_KIND } from './stateful-pod-identity';
import { StatefulPodControl, type ClaimLookup } from './stateful-pod-control';
import { applyRevision, statefulSetRevisions, type StatefulSetRevisions } from './stateful-set-revisions';
import {
  completeRollingUpdate,
  countReplicas,
  isFinished,
  isHealthy,
  isRunningAndAvailable,
  isRunningAndReady,
  nextAvailabilityInMs,
  statusNeedsUpdate,
  type StatefulSetStatus,
} from './stateful-set-status';

/** The controller's name: metrics, logs, and the `--concurrent-statefulset-syncs` flag. */
export const STATEFULSET_CONTROLLER_NAME = 'statefulset';

/** Slack after `minReadySeconds` before counting availability again, so that the pod surely counts. */
const AVAILABILITY_SLACK_MS = 50;

/** One ordinal of the set: the pod the cache holds for it, or the pod to create. */
interface Slot {
  ordinal: number;
  pod: Pod;
  /** The cache holds it; otherwise `pod` is what this sync would create. */
  created: boolean;
}

/** One sync's view: the set, its revisions, and what it acts on. */
interface Sync {
  set: StatefulSet;
  revisions: StatefulSetRevisions;
  /** The ordinals start..start+replicas-1, lowest first. */
  replicas: Slot[];
  /** Pods of ordinals beyond the range, highest first: they go. */
  condemned: Pod[];
  /** The lowest ordinal not healthy: in order, a scale-down may remove it even if not ready. */
  firstUnhealthy?: Pod;
  /** OrderedReady: one pod at a time, each running and ready before the next. */
  monotonic: boolean;
  nowMs: number;
  /** Set when this sync deleted a pod for the update: it is no longer current. */
  deletedForUpdate: boolean;
  /** Set when the server took a pod write of this sync: the cache will show it, and wake the set again. */
  changed: boolean;
  /** The claims of the set's namespace as the cache has them. */
  claims: ClaimLookup;
  /** Set when a pod waits for a claim of an earlier pod of its ordinal to go. */
  staleClaims?: boolean;
}

/** How often a set whose pod waits for a stale claim to go looks again. */
const STALE_CLAIM_RECHECK_MS = 1_000;

/** The StatefulSets of the pod's namespace whose selector matches it, when it has no controller and its name makes it theirs. */
function statefulSetsForOrphan(cache: CacheReader, pod: Pod): Request[] {
  if (getControllerOf(pod)) return [];
  const namespace = pod.metadata?.namespace ?? '';
  const requests: Request[] = [];
  for (const set of cache.list(BUILTIN_RESOURCES.statefulSets, { namespace })) {
    if (isMemberOf(set, pod) && statefulSetSelector(set)?.matches(pod.metadata?.labels)) requests.push({ namespace, name: set.metadata?.name ?? '' });
  }
  return requests;
}

// Cached objects are frozen and replaced on every change, so the object itself keys its parsed selector.
const selectors = new WeakMap<StatefulSet, LabelQuery | null>();

/** The set's selector, parsed once per cached object; undefined when it cannot be parsed or selects everything. */
function statefulSetSelector(set: StatefulSet): LabelQuery | undefined {
  let query = selectors.get(set);
  if (query === undefined) {
    try {
      query = LabelQuery.fromLabelSelector(set.spec?.selector);
      if (query.isEmpty()) query = null;
    } catch {
      query = null;
    }
    selectors.set(set, query);
  }
  return query ?? undefined;
}

/**
 * Kubernetes' StatefulSet controller: runs `spec.replicas` pods named `<set>-<ordinal>` from
 * `spec.ordinals.start` on, each with its hostname, the governing Service as subdomain, the identity
 * labels and the revision it was made from; creates them in order, each running and ready before
 * the next (OrderedReady) or all at once (Parallel), removes those beyond the range from the highest
 * ordinal down, and replaces pods of an old template from the highest ordinal down to the partition,
 * each ready before the next (RollingUpdate), or only as they are deleted (OnDelete). Each template
 * is a ControllerRevision; the status names the current and update revisions and counts the pods.
 *
 * Pods have fixed names, so a pod created twice is refused by the server: no expectations are
 * needed; the framework makes each sync wait until the cache shows the last one's writes.
 */
@Reconciler({
  name: STATEFULSET_CONTROLLER_NAME,
  for: BUILTIN_RESOURCES.statefulSets,
  owns: [BUILTIN_RESOURCES.pods],
  reads: [BUILTIN_RESOURCES.controllerRevisions, BUILTIN_RESOURCES.persistentVolumeClaims],
  indexes: [podControllerUidIndex],
  // A pod without a controller wakes the StatefulSets it could belong to, to be adopted.
  watches: [
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod, _r: unknown, cache) => statefulSetsForOrphan(cache, pod),
      predicates: [orphanPodChanged],
    },
  ],
})
export class StatefulSetReconciler implements Reconcile {
  private readonly client: Client;
  private readonly history: ControllerHistory;
  private readonly control: StatefulPodControl;

  constructor(client: Client) {
    this.client = client;
    this.history = new ControllerHistory(client);
    // Written in the background; the manager's client lets them finish when the controller stops.
    const events = new RateLimitedEvents(new EventRecorder(client, { component: 'statefulset-controller' }));
    this.control = new StatefulPodControl(client, events);
  }

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const set = cache.get(BUILTIN_RESOURCES.statefulSets, { namespace, name });
    // Gone: its pods and revisions name it as controller owner, so the garbage collector removes them.
    if (!set) return {};
    const selector = statefulSetSelector(set);
    if (!selector) return {};

    const revisions = await this.ownRevisions(cache, set, selector);
    const pods = await claimPods(this.candidatePods(cache, set), {
      rs: set,
      owner: STATEFUL_SET_KIND,
      selector,
      pods: this.client.pods,
      canAdopt: () => this.recheckForAdoption(set),
    });

    const found = await statefulSetRevisions(this.history, set, revisions);
    const sync = this.plan(set, found, pods, (ns, claim) => cache.get(BUILTIN_RESOURCES.persistentVolumeClaims, { namespace: ns, name: claim }));
    let failure: { error: unknown } | undefined;
    if (!set.metadata?.deletionTimestamp) {
      try {
        await this.act(sync);
      } catch (error) {
        failure = { error };
      }
    }
    // Pods this sync made or deleted are on their way to the cache, and each one's arrival syncs the
    // set again: a status written now would be stale at once (and its own update event one more sync
    // queued before theirs), so the sync that sees them writes it.
    if (!sync.changed || failure) await this.writeStatus(set, this.status(sync, pods));
    await this.truncateHistory(set, found, pods);
    if (failure) throw failure.error;
    const minReadySeconds = set.spec.minReadySeconds ?? 0;
    const wait = minReadySeconds > 0 ? nextAvailabilityInMs(pods, minReadySeconds, Date.now()) : undefined;
    // No event of its own wakes the set when a stale claim is finally gone.
    if (sync.staleClaims) return { requeueAfter: Math.min(wait ?? STALE_CLAIM_RECHECK_MS, STALE_CLAIM_RECHECK_MS) };
    return wait !== undefined ? { requeueAfter: wait + AVAILABILITY_SLACK_MS } : {};
  }

  /**
   * The set's revisions, orphans among them adopted first (Kubernetes' adoptOrphanRevisions): a
   * revision left by an earlier set of the same name and selector serves the new one.
   */
  private async ownRevisions(cache: CacheReader, set: StatefulSet, selector: LabelQuery): Promise<ControllerRevision[]> {
    const revisions = this.history.list(cache, set, selector);
    if (set.metadata?.deletionTimestamp || revisions.every((r) => getControllerOf(r) !== undefined)) return revisions;
    await this.recheckForAdoption(set);
    return Promise.all(revisions.map(async (r) => (getControllerOf(r) === undefined ? this.history.adopt(set, STATEFUL_SET_KIND, r) : r)));
  }

  /** The pods of the namespace the set controls, and the orphans named as its members that it may adopt. */
  private candidatePods(cache: CacheReader, set: StatefulSet): Pod[] {
    const namespace = set.metadata?.namespace ?? '';
    const owned = cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, set.metadata?.uid ?? '');
    const orphans = cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, orphanPodIndexKey(namespace));
    return [...owned.filter((p) => p.metadata?.namespace === namespace), ...orphans.filter((p) => isMemberOf(set, p))];
  }

  /** Sorts the pods into the ordinals of the range and the condemned beyond it, and makes the pods missing from the range. */
  private plan(set: StatefulSet, revisions: StatefulSetRevisions, pods: readonly Pod[], claims: ClaimLookup): Sync {
    const start = startOrdinal(set);
    const count = set.spec.replicas ?? 1;
    const byOrdinal = new Map<number, Pod>();
    const condemned: Pod[] = [];
    for (const pod of pods) {
      const ordinal = podOrdinal(pod);
      if (ordinal >= start && ordinal < start + count) byOrdinal.set(ordinal, pod);
      else if (ordinal >= 0) condemned.push(pod);
    }
    condemned.sort((a, b) => podOrdinal(b) - podOrdinal(a));
    const currentSet = applyRevision(set, revisions.current);
    const updateSet = applyRevision(set, revisions.update);
    const strategy = set.spec.updateStrategy;
    const partition = strategy?.rollingUpdate?.partition ?? 0;
    const replicas: Slot[] = [];
    for (let ordinal = start; ordinal < start + count; ordinal++) {
      const pod = byOrdinal.get(ordinal);
      if (pod) {
        replicas.push({ ordinal, pod, created: true });
        continue;
      }
      // Kubernetes' newVersionedStatefulSetPod: below the partition of a rolling update a missing pod comes back at the current revision.
      const current =
        strategy?.type === 'RollingUpdate' && (strategy.rollingUpdate ? ordinal < start + partition : ordinal < start + (set.status?.currentReplicas ?? 0));
      const made = current
        ? newStatefulPod(currentSet, ordinal, revisions.current.metadata?.name ?? '')
        : newStatefulPod(updateSet, ordinal, revisions.update.metadata?.name ?? '');
      replicas.push({ ordinal, pod: made, created: false });
    }
    const firstUnhealthy = replicas.find((s) => !s.created || !isHealthy(s.pod))?.pod ?? condemned.find((p) => !isHealthy(p));
    return {
      set,
      revisions,
      replicas,
      condemned,
      firstUnhealthy,
      monotonic: set.spec.podManagementPolicy !== 'Parallel',
      nowMs: Date.now(),
      deletedForUpdate: false,
      changed: false,
      claims,
    };
  }

  /**
   * Kubernetes' updateStatefulSet: first the ordinals of the range (made, replaced when finished,
   * identity restored), then the condemned (removed), then the rolling update. In order, any step
   * that waits for a pod ends the sync; in parallel, each stage runs for all its pods at once.
   */
  private async act(sync: Sync): Promise<void> {
    if (await this.runForAll(sync, sync.replicas.length, (i) => this.processReplica(sync, sync.replicas[i]))) return;
    if (await this.runForAll(sync, sync.condemned.length, (i) => this.processCondemned(sync, sync.condemned[i]))) return;
    if (sync.set.spec.updateStrategy?.type !== 'RollingUpdate') return;
    await this.rollingUpdate(sync);
  }

  /**
   * Runs `fn` for 0..count-1: in order, stopping at the first that asks to (true when it did); in
   * parallel, in slow-start batches (1, 2, 4, ...) that stop after a failure, as Kubernetes' runForAll.
   */
  private async runForAll(sync: Sync, count: number, fn: (i: number) => Promise<boolean>): Promise<boolean> {
    if (sync.monotonic) {
      for (let i = 0; i < count; i++) if (await fn(i)) return true;
      return false;
    }
    let next = 0;
    const outcome = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, async () => {
      await fn(next++);
    });
    if (outcome.error !== undefined) throw outcome.error instanceof Error ? outcome.error : new Error(errorMessage(outcome.error));
    return false;
  }

  /** One ordinal of the range (Kubernetes' processReplica); true when an ordered sync must stop here. */
  private async processReplica(sync: Sync, slot: Slot): Promise<boolean> {
    const { set, monotonic, nowMs } = sync;
    const pod = slot.pod;
    if (slot.created && isFinished(pod)) {
      // A finished pod is deleted; its successor is made once the deletion shows.
      if (!isPodTerminating(pod)) this.changed(sync, await this.control.deletePod(set, pod));
      return true;
    }
    if (!slot.created) {
      // A claim still going with an earlier pod of this ordinal (scaled away) waits for it to go.
      if (this.control.podClaimIsStale(set, pod, sync.claims)) {
        sync.staleClaims = true;
        return true;
      }
      this.changed(sync, await this.control.createPod(set, pod, sync.claims));
      return monotonic;
    }
    if (pod.status?.phase === 'Pending') await this.control.createMissingClaims(set, pod, sync.claims);
    await this.control.updateClaimsForRetention(set, pod, false, sync.claims);
    if (monotonic && (isPodTerminating(pod) || !isRunningAndReady(pod) || !isRunningAndAvailable(pod, set.spec.minReadySeconds ?? 0, nowMs))) {
      return true;
    }
    if (!identityMatches(set, pod)) this.changed(sync, await this.control.updatePodIdentity(set, pod));
    return false;
  }

  /** One pod beyond the range, highest ordinal first (Kubernetes' processCondemned). */
  private async processCondemned(sync: Sync, pod: Pod): Promise<boolean> {
    const { set, monotonic, nowMs, firstUnhealthy } = sync;
    if (isPodTerminating(pod)) return monotonic;
    // In order, a pod that is not ready waits, unless it is the first unhealthy one (it holds up nothing).
    if (monotonic && pod !== firstUnhealthy && (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, set.spec.minReadySeconds ?? 0, nowMs))) return true;
    await this.control.updateClaimsForRetention(set, pod, true, sync.claims);
    this.changed(sync, await this.control.deletePod(set, pod));
    return monotonic;
  }

  /**
   * Replaces the pod of the highest ordinal at or above the partition that runs another revision,
   * one per sync, and waits while any of them is not healthy (Kubernetes' rolling update with
   * MaxUnavailableStatefulSet off, as in 1.32: `maxUnavailable` is not read).
   */
  private async rollingUpdate(sync: Sync): Promise<void> {
    const { set, replicas, revisions } = sync;
    const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let i = replicas.length - 1; i >= partition; i--) {
      const { pod, created } = replicas[i];
      if (created && podRevision(pod) !== revisions.update.metadata?.name && !isPodTerminating(pod)) {
        this.changed(sync, await this.control.deletePod(set, pod));
        sync.deletedForUpdate = true;
        return;
      }
      if (!created || !isHealthy(pod)) return;
    }
  }

  private changed(sync: Sync, written: boolean): void {
    if (written) sync.changed = true;
  }

  /** The status this sync leaves (Kubernetes' updateStatus and completeRollingUpdate). */
  private status(sync: Sync, pods: readonly Pod[]): StatefulSetStatus {
    const { set, revisions } = sync;
    const names = { current: revisions.current.metadata?.name ?? '', update: revisions.update.metadata?.name ?? '' };
    const members = pods.filter((p) => podOrdinal(p) >= 0);
    const counts = countReplicas(members, set.spec.minReadySeconds ?? 0, names, Date.now());
    if (sync.deletedForUpdate && (counts.currentReplicas ?? 0) > 0) counts.currentReplicas = (counts.currentReplicas ?? 0) - 1;
    const status: StatefulSetStatus = {
      ...set.status,
      ...counts,
      observedGeneration: set.metadata?.generation,
      currentRevision: names.current,
      updateRevision: names.update,
      collisionCount: revisions.collisionCount,
    };
    return completeRollingUpdate(set, status);
  }

  /** Writes the status when it changed; on a conflict once more on the server's current object. */
  private async writeStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    if (!statusNeedsUpdate(set, status)) return;
    const namespace = set.metadata?.namespace ?? '';
    try {
      await this.client.statefulSets.updateStatus({ ...set, status }, { namespace });
    } catch (error) {
      if (isNotFound(error)) return;
      if (!isConflict(error)) throw error;
      const fresh = await this.client.statefulSets.get(set.metadata?.name ?? '', { namespace }).catch(ignoreNotFound);
      if (fresh) await this.client.statefulSets.updateStatus({ ...fresh, status }, { namespace });
    }
  }

  /**
   * Deletes the oldest revisions beyond `revisionHistoryLimit` that no pod runs and that are neither
   * current nor the update revision (Kubernetes' truncateHistory).
   */
  private async truncateHistory(set: StatefulSet, revisions: StatefulSetRevisions, pods: readonly Pod[]): Promise<void> {
    const live = new Set<string>([revisions.current.metadata?.name ?? '', revisions.update.metadata?.name ?? '']);
    for (const pod of pods) live.add(podRevision(pod));
    for (const revision of revisionsBeyondLimit(revisions.all, live, set.spec.revisionHistoryLimit ?? 10)) {
      await this.history.delete(revision);
    }
  }

  /**
   * Before adopting, an uncached read confirms the set is still this one and not being deleted
   * (Kubernetes' RecheckDeletionTimestamp).
   */
  private async recheckForAdoption(set: StatefulSet): Promise<void> {
    const name = set.metadata?.name ?? '';
    const fresh = await this.client.statefulSets.get(name, { namespace: set.metadata?.namespace });
    if (fresh.metadata?.uid !== set.metadata?.uid) {
      throw new Error(`original StatefulSet ${set.metadata?.namespace}/${name} is gone: got uid ${fresh.metadata?.uid}, wanted ${set.metadata?.uid}`);
    }
    if (fresh.metadata?.deletionTimestamp) {
      throw new Error(`StatefulSet ${set.metadata?.namespace}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
  }
}

import type { ControllerRevision, DaemonSet, Node, Pod } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, isWithdrawn, type ResourceClient } from '@svc/client';
import { errorMessage, isAlreadyExists, isConflict, isNamespaceTerminating, isNotFound, isTimeout, LabelQuery } from '@svc/machinery';
import {
  EventRecorder,
  getControllerOf,
  Reconciler,
  type CacheReader,
  type KeyExpectations,
  type MetaObject,
  type Predicate,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type Result,
} from '@svc/runtime';
import { ControllerHistory, nextRevisionNumber } from '../history';
import { claimPods, runLimited } from '../common/claim-pods';
import { orphanPodChanged } from '../common/orphan-pod-watch';
import { orphanPodIndexKey, POD_CONTROLLER_UID_INDEX, podControllerUidIndex } from '../common/pod-controller-index';
import { podFromTemplate } from '../common/pod-from-template';
import { RateLimitedEvents } from '../common/rate-limited-events';
import { controllerSelector } from '../common/controller-selector';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../common/slow-start-batch';
import { nodeNameAffinity } from './daemon-pod-placement';
import { DAEMON_SET_REVISION_HASH_LABEL, daemonPodTemplate } from './daemon-pod-revision';
import { podsByNode } from './daemon-pods-by-node';
import { calculateCounts, statusNeedsUpdate, type DaemonSetCounts } from './daemonset-status';
import { DAEMON_SET_KIND, newRevision, revisionMatches, revisionsToCleanUp, revisionToKeep } from './daemonset-revisions';
import { FailedPodBackoff } from './failed-pod-backoff';
import { DaemonSetReasons, planManage, type DaemonSetEvent } from './manage-plan';
import { planRollingUpdate } from './rolling-update';

/** The controller's name: metrics, logs, `--controllers`. */
export const DAEMONSET_CONTROLLER_NAME = 'daemonset';

/** Pods created or deleted per sync at most (Kubernetes' BurstReplicas for DaemonSets). */
export const DAEMONSET_BURST_REPLICAS = 250;

/** Slack after a pod's minReadySeconds before counting it available, so that it surely counts. */
const AVAILABILITY_SLACK_MS = 50;

/** How often idle failed-pod backoff entries are dropped (Kubernetes' BackoffGCInterval). */
const BACKOFF_GC_INTERVAL_MS = 60_000;

/** The DaemonSet's pod selector, parsed once per cached object; undefined when it cannot be parsed. */
export const daemonSetSelector: (ds: DaemonSet) => LabelQuery | undefined = controllerSelector;

/** The DaemonSets of an orphan pod's namespace whose selector matches it, to adopt it (Kubernetes' getDaemonSetsForPod). */
export function daemonSetsForOrphan(cache: CacheReader, pod: Pod): Request[] {
  if (getControllerOf(pod)) return [];
  const namespace = pod.metadata?.namespace ?? '';
  const requests: Request[] = [];
  for (const ds of cache.list(BUILTIN_RESOURCES.daemonSets, { namespace })) {
    const selector = daemonSetSelector(ds);
    if (selector && !selector.isEmpty() && selector.matches(pod.metadata?.labels)) requests.push({ namespace, name: ds.metadata?.name ?? '' });
  }
  return requests;
}

/** The DaemonSet controlling a revision (revisions are watched, not owned: they are no pods to expect). */
export function daemonSetOfRevision(revision: ControllerRevision): Request[] {
  const ref = getControllerOf(revision);
  if (ref?.kind !== DAEMON_SET_KIND.kind || !ref.apiVersion.startsWith('apps/')) return [];
  return [{ namespace: revision.metadata?.namespace ?? '', name: ref.name }];
}

function sameMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => a?.[k] === b?.[k]);
}

/**
 * Node changes that may change where daemons run (Kubernetes' shouldIgnoreNodeUpdate): a node
 * added or removed, or its labels or taints changed. Heartbeats and status changes are ignored.
 */
export const nodePlacementChanged: Predicate<Node> = (event) => {
  if (event.type !== 'update') return true;
  const old = event.oldObject;
  const cur = event.object;
  return !sameMap(old.metadata?.labels, cur.metadata?.labels) || JSON.stringify(old.spec?.taints ?? []) !== JSON.stringify(cur.spec?.taints ?? []);
};

/** Every DaemonSet: a node's change may concern any of them. */
function allDaemonSets(cache: CacheReader): Request[] {
  return cache.list(BUILTIN_RESOURCES.daemonSets).map((ds) => ({ namespace: ds.metadata?.namespace ?? '', name: ds.metadata?.name ?? '' }));
}

/** A sync again at the earliest of `waits` (ms): a failed pod's backoff, a pod becoming available, the expectations' lapse. */
function requeue(waits: ReadonlyArray<number | undefined>): Result {
  const due = waits.filter((w): w is number => w !== undefined);
  return due.length > 0 ? { requeueAfter: Math.min(...due) + AVAILABILITY_SLACK_MS } : {};
}

/** One sync's reads and its DaemonSet. */
interface Sync {
  ds: DaemonSet;
  cache: CacheReader;
  nodes: Node[];
  expectations: KeyExpectations;
  deleting: AbortSignal;
  withdrawOn: ReconcileContext['withdrawOn'];
}

/**
 * Kubernetes' DaemonSet controller: one pod of each DaemonSet on every node that should run it
 * (nodeSelector, required node affinity, taints against the template's tolerations and those every
 * daemon pod gets). Pods are placed through the scheduler: each names its node in a required node
 * affinity on `metadata.name`, never `spec.nodeName`. Failed pods are replaced within a backoff;
 * pods on nodes that no longer take them are deleted. Template changes roll out by RollingUpdate
 * (maxUnavailable or maxSurge) or OnDelete, each template kept as a ControllerRevision whose hash
 * labels its pods (`controller-revision-hash`, with `pod-template-generation`).
 *
 * It keeps Kubernetes' expectations: until the pod informer has shown the creations and deletions
 * a sync asked for, later syncs write only the status.
 */
@Reconciler({
  name: DAEMONSET_CONTROLLER_NAME,
  for: BUILTIN_RESOURCES.daemonSets,
  owns: [BUILTIN_RESOURCES.pods],
  indexes: [podControllerUidIndex],
  watches: [
    // A pod without a controller wakes the DaemonSets of its namespace that select it, to be adopted.
    { resource: BUILTIN_RESOURCES.pods, mapTo: (pod, _r: unknown, cache) => daemonSetsForOrphan(cache, pod), predicates: [orphanPodChanged] },
    { resource: BUILTIN_RESOURCES.nodes, mapTo: (_node, _r: unknown, cache) => allDaemonSets(cache), predicates: [nodePlacementChanged] },
    { resource: BUILTIN_RESOURCES.controllerRevisions, mapTo: (revision) => daemonSetOfRevision(revision) },
  ],
})
export class DaemonSetReconciler implements Reconcile {
  private readonly client: Client;
  private readonly pods: ResourceClient<Pod>;
  private readonly revisions: ResourceClient<ControllerRevision>;
  private readonly history: ControllerHistory;
  private readonly daemonSets: ResourceClient<DaemonSet>;
  private readonly events: RateLimitedEvents;
  private readonly backoff = new FailedPodBackoff();
  private lastBackoffGc = Date.now();

  constructor(client: Client) {
    this.client = client;
    this.pods = client.pods;
    this.revisions = client.controllerRevisions;
    this.history = new ControllerHistory(client);
    this.daemonSets = client.daemonSets;
    // Written in the background; the manager's client lets them finish when the controller stops.
    this.events = new RateLimitedEvents(new EventRecorder(client, { component: 'daemonset-controller' }));
  }

  async reconcile({ namespace = '', name }: Request, { cache, expectations, deleting, withdrawOn }: ReconcileContext): Promise<Result> {
    const ds = cache.get(BUILTIN_RESOURCES.daemonSets, { namespace, name });
    // Gone: its pods and revisions name it as controller, so the garbage collector removes them.
    if (!ds) return {};
    const selector = daemonSetSelector(ds);
    if (!selector) return {};
    if (selector.isEmpty()) {
      this.emit(ds, {
        type: 'Warning',
        reason: DaemonSetReasons.SelectingAll,
        message: 'This daemon set is selecting all pods. A non-empty selector is required.',
      });
      return {};
    }
    // Its revisions may be going (orphaned or deleted) with it: nothing reliable to count or do.
    if (ds.metadata?.deletionTimestamp) return {};
    const nowMs = Date.now();
    if (nowMs - this.lastBackoffGc > BACKOFF_GC_INTERVAL_MS) {
      this.backoff.gc(nowMs);
      this.lastBackoffGc = nowMs;
    }

    const sync: Sync = { ds, cache, nodes: cache.list(BUILTIN_RESOURCES.nodes), expectations, deleting, withdrawOn };
    const claimed = await this.claimDaemonPods(sync, selector);
    const revision = await this.constructHistory(sync, selector, claimed);
    const hash = revision.current.metadata?.labels?.[DAEMON_SET_REVISION_HASH_LABEL] ?? '';

    if (!expectations.satisfied()) {
      // Only the status: the generation was not acted on, so it is not observed.
      const counts = calculateCounts(ds, sync.nodes, podsByNode(claimed), hash, nowMs);
      await this.writeStatus(ds, counts, false);
      return requeue([counts.nextCheckMs, expectations.expiresInMs()]);
    }

    let failure: { error: unknown } | undefined;
    let retryAfterMs: number | undefined;
    try {
      retryAfterMs = await this.updateDaemonSet(sync, claimed, hash, revision.old);
    } catch (error) {
      failure = { error };
    }
    const counts = calculateCounts(ds, sync.nodes, podsByNode(claimed), hash, Date.now());
    try {
      await this.writeStatus(ds, counts, true);
    } catch (error) {
      failure ??= { error };
    }
    if (failure) throw failure.error;
    return requeue([retryAfterMs, counts.nextCheckMs, expectations.expiresInMs()]);
  }

  /** Kubernetes' updateDaemonSet: manage, then the rolling update once manage's own changes are seen, then the history's cleanup. */
  private async updateDaemonSet(sync: Sync, claimed: Pod[], hash: string, old: ControllerRevision[]): Promise<number | undefined> {
    const { ds, nodes, expectations } = sync;
    const pods = podsByNode(claimed);
    const plan = planManage({ ds, nodes, pods, hash, nowMs: Date.now(), backoff: this.backoff });
    for (const event of plan.events) this.emit(ds, event);
    await this.syncNodes(sync, plan.podsToDelete, plan.nodesNeedingPods, hash);

    if (expectations.satisfied() && ds.spec.updateStrategy?.type === 'RollingUpdate') {
      const update = planRollingUpdate({ ds, nodes, pods, hash, nowMs: Date.now() });
      await this.syncNodes(sync, update.podsToDelete, update.nodesNeedingPods, hash);
    }

    const victims = revisionsToCleanUp(old, ds.spec.revisionHistoryLimit ?? 10, claimed);
    for (const revision of victims) await this.history.delete(revision);
    return plan.retryAfterMs;
  }

  /**
   * The DaemonSet's pods (Kubernetes' getDaemonPods): those it controls, finished and terminating
   * ones included, and orphans it selects, adopted; those whose labels stopped matching are released.
   */
  private async claimDaemonPods({ ds, cache }: Sync, selector: LabelQuery): Promise<Pod[]> {
    const namespace = ds.metadata?.namespace ?? '';
    const candidates = [
      ...cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, ds.metadata?.uid ?? '').filter((p) => p.metadata?.namespace === namespace),
      ...cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, orphanPodIndexKey(namespace)),
    ];
    return claimPods(candidates, { rs: ds, owner: DAEMON_SET_KIND, selector, pods: this.pods, canAdopt: () => this.recheckForAdoption(ds) });
  }

  /**
   * Kubernetes' constructHistory: the revisions the DaemonSet controls (adopting orphans it selects,
   * releasing those it no longer selects), the one of its current template (made when missing,
   * deduplicated, renumbered above the others) and the old ones.
   */
  private async constructHistory(
    { ds, cache }: Sync,
    selector: LabelQuery,
    pods: readonly Pod[],
  ): Promise<{ current: ControllerRevision; old: ControllerRevision[] }> {
    const namespace = ds.metadata?.namespace ?? '';
    const controlled = await this.claimRevisions(ds, selector, cache.list(BUILTIN_RESOURCES.controllerRevisions, { namespace }));
    const current: ControllerRevision[] = [];
    const old: ControllerRevision[] = [];
    for (let revision of controlled) {
      // Revisions written before the label was kept get it, named after themselves (never a collision).
      if (revision.metadata?.labels?.[DAEMON_SET_REVISION_HASH_LABEL] === undefined) {
        const labelled = structuredClone(revision);
        labelled.metadata = { ...labelled.metadata, labels: { ...labelled.metadata?.labels, [DAEMON_SET_REVISION_HASH_LABEL]: labelled.metadata?.name ?? '' } };
        revision = await this.revisions.update(labelled, { namespace });
      }
      (revisionMatches(ds, revision) ? current : old).push(revision);
    }
    const next = nextRevisionNumber(old);
    if (current.length === 0) return { current: await this.snapshot(ds, next), old };
    const keep = revisionToKeep(current);
    if (current.length > 1) await this.dedupRevisions(ds, keep, current, pods);
    if (keep.revision < next) return { current: await this.history.renumber(keep, next), old };
    return { current: keep, old };
  }

  /** Kubernetes' snapshot: the revision of the current template; a name taken by another template bumps collisionCount and fails the sync. */
  private async snapshot(ds: DaemonSet, revision: number): Promise<ControllerRevision> {
    const namespace = ds.metadata?.namespace ?? '';
    const wanted = newRevision(ds, revision);
    try {
      return await this.revisions.create(wanted, { namespace });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const existing = await this.revisions.get(wanted.metadata?.name ?? '', { namespace });
      if (revisionMatches(ds, existing)) return existing;
      const fresh = await this.daemonSets.get(ds.metadata?.name ?? '', { namespace });
      const seen = ds.status?.collisionCount ?? undefined;
      const stored = fresh.status?.collisionCount ?? undefined;
      if (seen !== stored) {
        throw new Error(
          `found a stale collision count (${seen}, expected ${stored}) of DaemonSet "${ds.metadata?.name}" while processing; will retry until it is updated`,
        );
      }
      await this.daemonSets.updateStatus({ ...fresh, status: { ...fresh.status, collisionCount: (stored ?? 0) + 1 } }, { namespace });
      throw error;
    }
  }

  /** Kubernetes' dedupCurHistories: pods of the duplicates are relabelled to the kept revision's hash, then the duplicates go. */
  private async dedupRevisions(ds: DaemonSet, keep: ControllerRevision, current: readonly ControllerRevision[], pods: readonly Pod[]): Promise<void> {
    const namespace = ds.metadata?.namespace ?? '';
    const hash = keep.metadata?.labels?.[DAEMON_SET_REVISION_HASH_LABEL] ?? '';
    for (const pod of pods) {
      if (pod.metadata?.labels?.[DAEMON_SET_REVISION_HASH_LABEL] === hash) continue;
      await this.pods
        .patch(pod.metadata?.name ?? '', { metadata: { labels: { [DAEMON_SET_REVISION_HASH_LABEL]: hash } } }, 'merge', { namespace })
        .catch(ignoreNotFound);
    }
    for (const revision of current) if (revision.metadata?.name !== keep.metadata?.name) await this.history.delete(revision);
  }

  /**
   * Kubernetes' ClaimControllerRevisions: the revisions the DaemonSet controls and selects, orphans it
   * selects adopted (after an uncached check that it is still there), the others it controls released.
   * All revisions of the namespace are read, so that one whose labels stopped matching is released.
   */
  private async claimRevisions(ds: DaemonSet, selector: LabelQuery, revisions: readonly ControllerRevision[]): Promise<ControllerRevision[]> {
    const claimed: ControllerRevision[] = [];
    const tasks: Array<() => Promise<void>> = [];
    let adoptable: Promise<void> | undefined;
    for (const revision of revisions) {
      const ref = getControllerOf(revision);
      const matches = selector.matches(revision.metadata?.labels);
      if (ref) {
        if (ref.uid !== ds.metadata?.uid) continue;
        if (matches) claimed.push(revision);
        else tasks.push(() => this.history.release(ds, revision));
        continue;
      }
      if (!matches || revision.metadata?.deletionTimestamp) continue;
      tasks.push(async () => {
        adoptable ??= this.recheckForAdoption(ds);
        await adoptable;
        try {
          claimed.push(await this.history.adopt(ds, DAEMON_SET_KIND, revision));
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      });
    }
    let failure: unknown;
    await runLimited(tasks, 8, (error) => (failure ??= error));
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(errorMessage(failure));
    return claimed;
  }

  /**
   * Kubernetes' syncNodes: deletes `podsToDelete` and makes a pod on each of `nodesNeedingPods`,
   * at most {@link DAEMONSET_BURST_REPLICAS} of each per sync, creates in slow-start batches.
   * Expectations are raised first and lowered for what failed.
   */
  private async syncNodes(sync: Sync, podsToDelete: readonly Pod[], nodesNeedingPods: readonly string[], hash: string): Promise<void> {
    const { ds, expectations } = sync;
    const creations = nodesNeedingPods.slice(0, DAEMONSET_BURST_REPLICAS);
    const deletions = podsToDelete.slice(0, DAEMONSET_BURST_REPLICAS);
    const errors: unknown[] = [];
    if (creations.length > 0) {
      expectations.expectCreations(creations.length);
      const template = daemonPodTemplate(ds, hash);
      let attempted = 0;
      // A DaemonSet going away gets no more pods: creates still waiting for the rate limiter are withdrawn.
      const outcome = await sync.withdrawOn(sync.deleting, () =>
        slowStartBatch(creations.length, SLOW_START_INITIAL_BATCH_SIZE, () => this.createPod(sync, template, creations[attempted++])),
      );
      // Creates the slow start never tried will never be observed.
      for (let i = attempted; i < creations.length; i++) expectations.creationObserved();
      if (outcome.error !== undefined) errors.push(outcome.error);
    }
    if (deletions.length > 0) {
      expectations.expectDeletions(deletions);
      const results = await Promise.allSettled(deletions.map((pod) => this.deletePod(ds, pod, expectations)));
      for (const r of results) if (r.status === 'rejected') errors.push(r.reason);
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, errors.map((e) => errorMessage(e)).join('; '));
  }

  private async createPod(sync: Sync, template: DaemonSet['spec']['template'], nodeName: string): Promise<void> {
    const { ds, expectations } = sync;
    if (sync.deleting.aborted) {
      expectations.creationObserved();
      return;
    }
    // The pod is made as any controller's from its template (generated name, labels, controller
    // reference), then pinned to its node through the scheduler.
    const pod = podFromTemplate({ metadata: ds.metadata, spec: { template } }, DAEMON_SET_KIND);
    pod.spec = { ...pod.spec, affinity: nodeNameAffinity(pod.spec.affinity, nodeName) };
    try {
      const created = await this.pods.create(pod, { namespace: ds.metadata?.namespace });
      this.emit(ds, { type: 'Normal', reason: 'SuccessfulCreate', message: `Created pod: ${created.metadata?.name}` });
    } catch (error) {
      // A timed-out create may still make the pod: it stays awaited until observed or the expectations lapse.
      if (isWithdrawn(error) || !isTimeout(error)) expectations.creationObserved();
      if (isWithdrawn(error) && sync.deleting.aborted) return;
      // Every create fails in a namespace going away, and the namespace takes the DaemonSet with it.
      if (isNamespaceTerminating(error)) return;
      this.emit(ds, { type: 'Warning', reason: 'FailedCreate', message: `Error creating: ${errorMessage(error)}` });
      throw error;
    }
  }

  private async deletePod(ds: DaemonSet, pod: Pod, expectations: KeyExpectations): Promise<void> {
    const name = pod.metadata?.name ?? '';
    try {
      await this.pods.delete(name, { namespace: pod.metadata?.namespace });
      this.emit(ds, { type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${name}` });
    } catch (error) {
      expectations.deletionObserved(pod);
      if (isNotFound(error)) return;
      this.emit(ds, { type: 'Warning', reason: 'FailedDelete', message: `Error deleting: ${errorMessage(error)}` });
      throw error;
    }
  }

  /** Before adopting, an uncached read confirms the DaemonSet is still this one and not being deleted. */
  private async recheckForAdoption(ds: DaemonSet): Promise<void> {
    const name = ds.metadata?.name ?? '';
    const fresh = await this.daemonSets.get(name, { namespace: ds.metadata?.namespace });
    if (fresh.metadata?.uid !== ds.metadata?.uid) {
      throw new Error(`original DaemonSet ${ds.metadata?.namespace}/${name} is gone: got uid ${fresh.metadata?.uid}, wanted ${ds.metadata?.uid}`);
    }
    if (fresh.metadata?.deletionTimestamp) {
      throw new Error(`DaemonSet ${ds.metadata?.namespace}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
  }

  private emit(ds: DaemonSet, event: DaemonSetEvent): void {
    this.events.emit(this.subject(ds), event.type, event.reason, event.message);
  }

  /** Cached objects may lack their kind; the Event names it. */
  private subject(ds: DaemonSet): MetaObject {
    return { ...DAEMON_SET_KIND, metadata: ds.metadata };
  }

  /**
   * Kubernetes' storeDaemonSetStatus: written when a count changed or the generation is not yet
   * observed; on a conflict once more on the server's current object.
   */
  private async writeStatus(ds: DaemonSet, counts: DaemonSetCounts, observeGeneration: boolean): Promise<void> {
    const { nextCheckMs: _next, ...own } = counts as DaemonSetCounts & { nextCheckMs?: number };
    if (!statusNeedsUpdate(ds, own)) return;
    const namespace = ds.metadata?.namespace ?? '';
    const write = (target: DaemonSet) => {
      const status = { ...target.status, ...own };
      if (observeGeneration) status.observedGeneration = Number(ds.metadata?.generation ?? 0);
      return this.daemonSets.updateStatus({ ...target, status }, { namespace });
    };
    try {
      await write(ds);
    } catch (error) {
      if (isNotFound(error)) return;
      if (!isConflict(error)) throw error;
      const fresh = await this.daemonSets.get(ds.metadata?.name ?? '', { namespace }).catch(ignoreNotFound);
      if (fresh) await write(fresh);
    }
  }
}

import { JOB_CONTROLLER_NAME, JOB_TRACKING_FINALIZER, type Job, type Pod } from '@svc/api';
import { BUILTIN_RESOURCES, Client, isWithdrawn, type ResourceClient } from '@svc/client';
import { errorMessage, isNamespaceTerminating, isNotFound, isTimeout, metaTime } from '@svc/machinery';
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
import { isPodReady } from '../common/pod-status';
import { claimPods, runLimited } from '../common/claim-pods';
import { orphanPodChanged } from '../common/orphan-pod-watch';
import { orphanPodIndexKey, POD_CONTROLLER_UID_INDEX, podControllerUidIndex } from '../common/pod-controller-index';
import { compareForDeletion } from '../common/pod-ranking';
import { RateLimitedEvents } from '../common/rate-limited-events';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../common/slow-start-batch';
import { firstPendingIndexes, validCompletionIndex, withIndexes, mergeIntervals } from './completion-indexes';
import { ensureJobCondition, isJobFinished } from './job-conditions';
import { JOB_KIND, newJobPod, templateOwnerView } from './job-pod';
import { hasTrackingFinalizer, isPodStopping, onlyReplaceFailedPods } from './job-pod-state';
import { type JobSyncAction, JobMetrics } from './job-metrics';
import { jobSelector } from './job-selector';
import {
  cleanUncounted,
  completionsReachedCondition,
  decideFinished,
  enactJobFinished,
  isIndexedJob,
  isJobSuspended,
  newSyncState,
  planTracking,
  reachedCompletions,
  setCount,
  type JobSyncState,
} from './job-sync-state';
import { newIndexFailureCounts, remainingIndexBackoffMs } from './index-failures';
import { remainingBackoffMs, type BackoffRecord } from './pod-failure-backoff';

/** The controller's name: `--controllers`, metrics and logs. */
export const JOB_RECONCILER_NAME = 'job';

/** Kubernetes' MaxPodCreateDeletePerSync. */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;

/** Writes to pods in flight at once for one Job (finalizer removals and deletions). */
const POD_WRITE_CONCURRENCY = 32;

const NO_BACKOFF: BackoffRecord = { failuresAfterLastSuccess: 0 };

/** A Job another controller runs (`spec.managedBy` other than the built-in one) is left alone. */
export function managedElsewhere(job: Job): boolean {
  const managedBy = job.spec?.managedBy;
  return managedBy !== undefined && managedBy !== JOB_CONTROLLER_NAME;
}

/** Jobs of the pod's namespace whose selector matches it, when the pod has no controller (to be adopted). */
function jobsForOrphan(cache: CacheReader, pod: Pod): Request[] {
  if (getControllerOf(pod)) return [];
  const namespace = pod.metadata?.namespace ?? '';
  return cache
    .lister(BUILTIN_RESOURCES.jobs)
    .namespace(namespace)
    .list()
    .filter((job) => !managedElsewhere(job) && jobSelector(job)?.matches(pod.metadata?.labels))
    .map((job) => ({ namespace, name: job.metadata?.name ?? '' }));
}

/** Runs `fn` on each item, at most `limit` at once; how many succeeded, and the first failure. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<{ succeeded: number; error?: unknown }> {
  let succeeded = 0;
  let error: unknown;
  await runLimited(
    items.map((item) => async () => {
      await fn(item);
      succeeded++;
    }),
    limit,
    (e) => (error ??= e),
  );
  return error === undefined ? { succeeded } : { succeeded, error };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(errorMessage(error));
}

/**
 * Kubernetes' Job controller (pkg/controller/job, 1.32): runs a Job's pods until enough succeed,
 * counting each ended pod exactly once through the `batch.kubernetes.io/job-tracking` finalizer and
 * `status.uncountedTerminatedPods`: an ended pod's uid is written to the status before its finalizer
 * is removed, and moved into the counters only once the removal succeeded, so a pod is neither
 * counted twice nor lost across crashes and conflicts.
 *
 * Failures are replaced after an exponential backoff (10 s doubling to 6 min) until backoffLimit,
 * backoffLimitPerIndex or a pod failure policy ends the Job; a Job that fails or succeeds gets
 * FailureTarget or SuccessCriteriaMet first, and Failed or Complete once all its pods have ended.
 */
@Reconciler({
  name: JOB_RECONCILER_NAME,
  for: BUILTIN_RESOURCES.jobs,
  owns: [BUILTIN_RESOURCES.pods],
  indexes: [podControllerUidIndex],
  // A pod without a controller wakes the Jobs of its namespace that select it, to be adopted.
  watches: [{ resource: BUILTIN_RESOURCES.pods, mapTo: (pod, _r: unknown, cache) => jobsForOrphan(cache, pod), predicates: [orphanPodChanged] }],
})
export class JobReconciler implements Reconcile {
  private readonly client: Client;
  private readonly pods: ResourceClient<Pod>;
  private readonly events: RateLimitedEvents;
  /** Failures since the last success, per Job (Kubernetes keeps this in memory too). */
  private readonly backoff = new Map<string, BackoffRecord>();
  /** Pods whose finalizer this controller removed and its cache may not show yet, per Job. */
  private readonly removals = new Map<string, Set<string>>();

  private readonly metrics: JobMetrics;

  constructor(client: Client, metrics: JobMetrics) {
    this.client = client;
    this.metrics = metrics;
    this.pods = client.pods;
    this.events = new RateLimitedEvents(new EventRecorder(client, { component: 'job-controller' }));
  }

  async reconcile({ namespace = '', name }: Request, context: ReconcileContext): Promise<Result> {
    const key = `${namespace}/${name}`;
    const cached = context.cache.lister(BUILTIN_RESOURCES.jobs).namespace(namespace).get(name);
    if (!cached) {
      // Gone: its pods' finalizers are released by the job pod finalizer reconciler.
      this.backoff.delete(key);
      this.removals.delete(key);
      return {};
    }
    if (managedElsewhere(cached)) return {};
    if (isJobFinished(cached)) {
      this.backoff.delete(key);
      this.removals.delete(key);
      return {};
    }

    const mode = isIndexedJob(cached) ? 'Indexed' : 'NonIndexed';
    const sync: { action: JobSyncAction } = { action: 'tracking' };
    const started = process.hrtime.bigint();
    let result: 'success' | 'error' = 'error';
    try {
      const answer = await this.syncJob(key, cached, context, sync);
      result = 'success';
      return answer;
    } finally {
      const labels = { completion_mode: mode, result, action: sync.action };
      this.metrics.syncs.inc(labels);
      this.metrics.syncDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /** One sync of a Job not finished (Kubernetes' syncJob); `sync.action` says what it did, for the metrics. */
  private async syncJob(key: string, cached: Job, context: ReconcileContext, sync: { action: JobSyncAction }): Promise<Result> {
    const satisfied = context.expectations.satisfied();
    if (!satisfied) sync.action = 'reconciling';
    const pods = await this.podsForJob(context, cached);
    const nowMs = Date.now();
    const state = newSyncState(cached, pods, this.expectedRemovals(key, pods), this.backoff.get(key) ?? NO_BACKOFF, nowMs);
    const startTimeBefore = cached.status?.startTime;
    const { deadlineInMs } = decideFinished(state, nowMs);
    const waits: number[] = [];
    if (deadlineInMs !== undefined) waits.push(deadlineInMs);

    let active = state.activePods.length;
    let manageError: unknown;
    let suspendChanged = false;
    if (state.finishedCondition) {
      const outcome = await this.deleteActivePods(state.job, state.activePods);
      if (outcome.removed > 0) sync.action = 'pods_deleted';
      // Pods that would not go, or pods not yet in the cache: the Job is not finished yet.
      if (outcome.removed !== active || !satisfied) state.finishedCondition = undefined;
      active -= outcome.removed;
      state.terminating += outcome.removed;
      state.ready -= outcome.removedReady;
      manageError = outcome.error;
    } else {
      let managed = false;
      if (satisfied && !state.job.metadata?.deletionTimestamp) {
        const outcome = await this.manageJob(state, context, nowMs);
        if (outcome.active > active) sync.action = 'pods_created';
        else if (outcome.active < active) sync.action = 'pods_deleted';
        active = outcome.active;
        manageError = outcome.error;
        if (outcome.retryInMs !== undefined) waits.push(outcome.retryInMs);
        managed = true;
      }
      if (reachedCompletions(state, active)) {
        state.finishedCondition = completionsReachedCondition(nowMs);
      } else if (managed) {
        suspendChanged = this.updateSuspended(state, nowMs);
      }
    }

    const status = state.job.status;
    const needsFlush =
      suspendChanged ||
      active !== (status.active ?? 0) ||
      state.ready !== status.ready ||
      state.terminating !== status.terminating ||
      status.startTime !== startTimeBefore;
    setCount(status, 'active', active);
    status.ready = state.ready;
    status.terminating = state.terminating;
    await this.trackStatus(key, state, needsFlush, nowMs);
    if (manageError !== undefined) throw asError(manageError);

    const expiry = context.expectations.expiresInMs();
    if (expiry !== undefined) waits.push(expiry);
    return waits.length > 0 ? { requeueAfter: Math.max(1, Math.min(...waits)) } : {};
  }

  /** The Suspended condition and the startTime that goes with it; true when they changed. */
  private updateSuspended(state: JobSyncState, nowMs: number): boolean {
    const { job } = state;
    const conditions = (job.status.conditions ??= []);
    let changed: boolean;
    if (isJobSuspended(job)) {
      changed = ensureJobCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', nowMs);
      if (changed) this.event(job, 'Normal', 'Suspended', 'Job suspended');
      // The deadline counts active time only: a resumed Job starts its clock again.
      if (job.status.startTime !== undefined) {
        delete job.status.startTime;
        changed = true;
      }
    } else {
      changed = ensureJobCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', nowMs);
      if (changed) {
        this.event(job, 'Normal', 'Resumed', 'Job resumed');
        job.status.startTime = metaTime(nowMs);
      }
    }
    if (conditions.length === 0) delete job.status.conditions;
    return changed;
  }

  /** Known finalizer removals the pods in the cache have not caught up with. */
  private expectedRemovals(key: string, pods: readonly Pod[]): ReadonlySet<string> {
    const pending = this.removals.get(key);
    if (!pending) return new Set();
    const withFinalizer = new Set(pods.filter(hasTrackingFinalizer).map((p) => p.metadata?.uid ?? ''));
    for (const uid of pending) if (!withFinalizer.has(uid)) pending.delete(uid);
    if (pending.size === 0) this.removals.delete(key);
    return new Set(pending);
  }

  /**
   * The pods of the Job (Kubernetes' getPodsForJob): those it controls whatever their phase, and
   * orphans its selector matches, which it adopts with the tracking finalizer.
   */
  private async podsForJob({ cache }: ReconcileContext, job: Job): Promise<Pod[]> {
    const namespace = job.metadata?.namespace ?? '';
    const selector = jobSelector(job);
    const owned = cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, job.metadata?.uid ?? '').filter((p) => p.metadata?.namespace === namespace);
    if (!selector) return owned;
    const orphans = cache.byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, orphanPodIndexKey(namespace));
    if (orphans.length === 0 && owned.every((p) => selector.matches(p.metadata?.labels))) return owned;
    const claimed = await claimPods([...owned, ...orphans], {
      rs: templateOwnerView(job),
      owner: JOB_KIND,
      selector,
      pods: this.pods,
      canAdopt: () => this.recheckForAdoption(job),
    });
    const adopted = claimed.filter((p) => !getControllerOf(p) && !hasTrackingFinalizer(p));
    await Promise.all(adopted.map((p) => this.addTrackingFinalizer(p)));
    // Counted from now on as carrying the finalizer (it is on its way).
    return claimed.map((p) =>
      adopted.includes(p) ? { ...p, metadata: { ...p.metadata, finalizers: [...(p.metadata?.finalizers ?? []), JOB_TRACKING_FINALIZER] } } : p,
    );
  }

  private async addTrackingFinalizer(pod: Pod): Promise<void> {
    const meta = pod.metadata ?? {};
    try {
      await this.pods.patch(
        meta.name ?? '',
        { metadata: { finalizers: [...(meta.finalizers ?? []), JOB_TRACKING_FINALIZER], resourceVersion: meta.resourceVersion } },
        'merge',
        { namespace: meta.namespace },
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** An uncached read confirms the Job is still this one and not being deleted before it adopts. */
  private async recheckForAdoption(job: Job): Promise<void> {
    const name = job.metadata?.name ?? '';
    const fresh = await this.client.jobs.get(name, { namespace: job.metadata?.namespace });
    if (fresh.metadata?.uid !== job.metadata?.uid) {
      throw new Error(`original Job ${job.metadata?.namespace}/${name} is gone: got uid ${fresh.metadata?.uid}, wanted ${job.metadata?.uid}`);
    }
    if (fresh.metadata?.deletionTimestamp)
      throw new Error(`Job ${job.metadata?.namespace}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
  }

  /**
   * Kubernetes' manageJob: deletes every active pod of a suspended Job, or the surplus over what
   * parallelism and the remaining completions allow, or else creates the missing pods (each index
   * once, for an Indexed Job) once the backoff after the last failures has passed.
   */
  private async manageJob(state: JobSyncState, context: ReconcileContext, nowMs: number): Promise<{ active: number; error?: unknown; retryInMs?: number }> {
    const { job } = state;
    const active = state.activePods.length;
    const { expectations } = context;
    if (isJobSuspended(job)) {
      const victims = activePodsForRemoval(job, state.activePods, active);
      expectations.expectDeletions(victims);
      const outcome = await this.deleteJobPods(job, victims, expectations);
      state.terminating += outcome.removed;
      state.ready -= outcome.removedReady;
      return { active: active - outcome.removed, error: outcome.error };
    }

    const parallelism = job.spec.parallelism ?? 1;
    let wantActive: number;
    if (job.spec.completions === undefined) wantActive = state.succeeded > 0 ? active : parallelism;
    else wantActive = Math.max(0, Math.min(job.spec.completions - state.succeeded, parallelism));

    const victims = activePodsForRemoval(job, state.activePods, Math.max(0, active - wantActive)).slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
    if (victims.length > 0) {
      // Creations and deletions never share a sync; deletions go first.
      expectations.expectDeletions(victims);
      const outcome = await this.deleteJobPods(job, victims, expectations);
      state.terminating += outcome.removed;
      state.ready -= outcome.removedReady;
      return { active: active - outcome.removed, error: outcome.error };
    }

    const terminating = onlyReplaceFailedPods(job) ? state.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active };
    const perIndex = job.spec.backoffLimitPerIndex !== undefined;
    if (!perIndex) {
      const wait = remainingBackoffMs(state.newBackoff.failuresAfterLastSuccess, state.newBackoff.lastFailureMs, nowMs);
      if (wait > 0) return { active, retryInMs: wait };
    }
    diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
    let indexes: number[] | undefined;
    if (isIndexedJob(job)) {
      const completions = job.spec.completions ?? 0;
      let taken = withIndexes(state.succeededIndexes, indexesOf(state.activePods, completions));
      if (state.failedIndexes) taken = mergeIntervals(taken, state.failedIndexes);
      if (onlyReplaceFailedPods(job)) taken = withIndexes(taken, indexesOf(state.pods.filter(isPodStopping), completions));
      indexes = firstPendingIndexes(taken, diff, completions);
      if (perIndex) {
        const waits = indexes.map((i) => remainingIndexBackoffMs(state.delayedDeletion.get(i), nowMs));
        const ready = indexes.filter((_, n) => waits[n] === 0);
        if (ready.length === 0 && indexes.length > 0) return { active, retryInMs: Math.min(...waits) };
        indexes = ready;
      }
      diff = indexes.length;
    }
    if (diff <= 0) return { active };

    expectations.expectCreations(diff);
    const pending = indexes ? [...indexes] : undefined;
    let attempted = 0;
    const outcome = await context.withdrawOn(context.deleting, () =>
      slowStartBatch(diff, SLOW_START_INITIAL_BATCH_SIZE, () => {
        attempted++;
        const index = pending?.shift();
        const pod = newJobPod(job, index, index !== undefined && perIndex ? newIndexFailureCounts(job, state.delayedDeletion.get(index)) : undefined);
        return this.createPod(job, pod, expectations, context.deleting);
      }),
    );
    // Creates the slow start never tried will never be observed.
    for (let i = attempted; i < diff; i++) expectations.creationObserved();
    return { active: active + outcome.successes, error: outcome.error };
  }

  private async createPod(job: Job, pod: Pod, expectations: KeyExpectations, deleting: AbortSignal): Promise<void> {
    if (deleting.aborted) {
      expectations.creationObserved();
      return;
    }
    try {
      const created = await this.pods.create(pod, { namespace: job.metadata?.namespace });
      this.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
    } catch (error) {
      // A timed-out create may still make the pod: that one stays awaited.
      if (isWithdrawn(error) || !isTimeout(error)) expectations.creationObserved();
      if (isWithdrawn(error) && deleting.aborted) return;
      if (isNamespaceTerminating(error)) return;
      this.event(job, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(error)}`);
      throw error;
    }
  }

  /**
   * Deletes pods the Job no longer wants (suspended, or too many): each loses its finalizer first,
   * as it is not counted as failed (Kubernetes' deleteJobPods).
   */
  private async deleteJobPods(
    job: Job,
    pods: readonly Pod[],
    expectations: KeyExpectations,
  ): Promise<{ removed: number; removedReady: number; error?: unknown }> {
    let removedReady = 0;
    const outcome = await eachLimited(pods, POD_WRITE_CONCURRENCY, async (pod) => {
      try {
        if (hasTrackingFinalizer(pod)) await this.removeFinalizerPatch(pod);
        await this.deletePod(job, pod);
        if (isPodReady(pod)) removedReady++;
      } catch (error) {
        expectations.deletionObserved(pod);
        throw error;
      }
    });
    return { removed: outcome.succeeded, removedReady, error: outcome.error };
  }

  /** Deletes the active pods of a Job that is finishing; their finalizers stay until they are counted. */
  private async deleteActivePods(job: Job, pods: readonly Pod[]): Promise<{ removed: number; removedReady: number; error?: unknown }> {
    let removedReady = 0;
    const outcome = await eachLimited(pods, POD_WRITE_CONCURRENCY, async (pod) => {
      await this.deletePod(job, pod);
      if (isPodReady(pod)) removedReady++;
    });
    return { removed: outcome.succeeded, removedReady, error: outcome.error };
  }

  private async deletePod(job: Job, pod: Pod): Promise<void> {
    const name = pod.metadata?.name ?? '';
    try {
      await this.pods.delete(name, { namespace: pod.metadata?.namespace });
      this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    } catch (error) {
      if (isNotFound(error)) return;
      this.event(job, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(error)}`);
      throw error;
    }
  }

  private async removeFinalizerPatch(pod: Pod): Promise<void> {
    await this.pods.patch(pod.metadata?.name ?? '', { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [JOB_TRACKING_FINALIZER] } } as never, 'strategic', {
      namespace: pod.metadata?.namespace,
    });
  }

  /**
   * Kubernetes' trackJobStatusAndRemoveFinalizers: writes the ended pods into the status, then
   * removes their finalizers, then moves those released into the counters, and finally declares
   * the Job finished when nothing is left to count and no pod is still stopping.
   */
  private async trackStatus(key: string, state: JobSyncState, needsFlush: boolean, nowMs: number): Promise<void> {
    const plan = planTracking(state, nowMs, needsFlush);
    let flush = plan.needsFlush;
    if (flush) {
      await this.writeStatus(state);
      this.backoff.set(key, state.newBackoff);
      flush = false;
    }
    // Counted once the status naming those pods is written, as Kubernetes counts them.
    for (const [action, count] of plan.failurePolicyActions) this.metrics.failurePolicyActions.inc({ action }, count);
    if (plan.podsToRemoveFinalizer.length > 0) {
      const removed = await this.removeFinalizers(key, plan.podsToRemoveFinalizer);
      for (const uid of removed.uids) plan.uidsWithFinalizer.delete(uid);
      if (cleanUncounted(state.job.status, plan.uidsWithFinalizer)) flush = true;
      if (removed.error !== undefined) {
        // Partial progress is written; the rest is retried.
        if (flush) await this.writeStatus(state);
        throw asError(removed.error);
      }
    }
    const finished = !plan.reachedMaxUncounted && enactJobFinished(state, nowMs);
    if (finished) flush = true;
    if (!flush) return;
    await this.writeStatus(state);
    if (finished) this.recordFinished(state);
  }

  /** Pods moved into the counters by a status write, by result (Kubernetes' recordJobPodsFinished). */
  private recordPodsFinished(job: Job, before: { succeeded?: number; failed?: number }): void {
    const completion_mode = isIndexedJob(job) ? 'Indexed' : 'NonIndexed';
    const succeeded = (job.status?.succeeded ?? 0) - (before.succeeded ?? 0);
    const failed = (job.status?.failed ?? 0) - (before.failed ?? 0);
    if (succeeded > 0) this.metrics.podsFinished.inc({ completion_mode, result: 'succeeded' }, succeeded);
    if (failed > 0) this.metrics.podsFinished.inc({ completion_mode, result: 'failed' }, failed);
  }

  /** Removes the tracking finalizer of each pod; the uids released (or already gone), and the first failure. */
  private async removeFinalizers(key: string, pods: readonly Pod[]): Promise<{ uids: string[]; error?: unknown }> {
    const pending = this.removals.get(key) ?? new Set<string>();
    this.removals.set(key, pending);
    for (const pod of pods) pending.add(pod.metadata?.uid ?? '');
    const uids: string[] = [];
    const outcome = await eachLimited(pods, POD_WRITE_CONCURRENCY, async (pod) => {
      const uid = pod.metadata?.uid ?? '';
      try {
        await this.removeFinalizerPatch(pod);
        uids.push(uid);
      } catch (error) {
        // No update of this pod will come: nothing to wait for.
        pending.delete(uid);
        if (isNotFound(error)) {
          uids.push(uid);
          return;
        }
        throw error;
      }
    });
    return { uids, error: outcome.error };
  }

  private async writeStatus(state: JobSyncState): Promise<void> {
    const before = { succeeded: state.written.succeeded, failed: state.written.failed };
    const updated = await this.client.jobs.updateStatus(state.job, { namespace: state.job.metadata?.namespace });
    this.recordPodsFinished(updated, before);
    state.written = { succeeded: updated.status?.succeeded, failed: updated.status?.failed };
    const status = (updated.status ??= {});
    status.uncountedTerminatedPods ??= {};
    state.job = updated as JobSyncState['job'];
  }

  private recordFinished(state: JobSyncState): void {
    const { job, finishedCondition } = state;
    if (!finishedCondition) return;
    this.metrics.finished.inc({
      completion_mode: isIndexedJob(job) ? 'Indexed' : 'NonIndexed',
      result: finishedCondition.type === 'Complete' ? 'succeeded' : 'failed',
      reason: finishedCondition.reason ?? '',
    });
    if (finishedCondition.type === 'Complete') {
      if (job.spec.completions !== undefined && (job.status.succeeded ?? 0) > job.spec.completions) {
        this.event(job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      this.event(job, 'Normal', 'Completed', 'Job completed');
    } else {
      this.event(job, 'Warning', finishedCondition.reason ?? '', finishedCondition.message ?? '');
    }
  }

  private event(job: Job, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const subject: MetaObject = { apiVersion: 'batch/v1', kind: 'Job', metadata: job.metadata };
    this.events.emit(subject, type, reason, message);
  }
}

function indexesOf(pods: readonly Pod[], completions: number): number[] {
  const indexes = new Set<number>();
  for (const pod of pods) {
    const index = validCompletionIndex(pod, completions);
    if (index >= 0) indexes.add(index);
  }
  return [...indexes].sort((a, b) => a - b);
}

/** Kubernetes' ActivePods order: unscheduled, pending, not ready, newer first. */
function byDeletionOrder(a: Pod, b: Pod): number {
  return compareForDeletion(a, 0, b, 0, { nowMs: 0, deletionCost: false, logarithmic: false });
}

/**
 * The active pods to delete (Kubernetes' activePodsForRemoval): for an Indexed Job first those
 * without a valid index and all but the most advanced pod of a repeated index, then at least
 * `atLeast` in all, the least advanced first.
 */
export function activePodsForRemoval(job: Job, pods: readonly Pod[], atLeast: number): Pod[] {
  const remove: Pod[] = [];
  let left: Pod[] = [...pods];
  if (isIndexedJob(job)) {
    const completions = job.spec.completions ?? 0;
    left = [];
    const byIndex = new Map<number, Pod[]>();
    for (const pod of pods) {
      const index = validCompletionIndex(pod, completions);
      if (index < 0) remove.push(pod);
      else byIndex.set(index, [...(byIndex.get(index) ?? []), pod]);
    }
    for (const index of [...byIndex.keys()].sort((a, b) => a - b)) {
      const same = byIndex.get(index)!.sort(byDeletionOrder);
      remove.push(...same.slice(0, -1));
      left.push(same[same.length - 1]);
    }
  }
  if (remove.length < atLeast) {
    left.sort(byDeletionOrder);
    remove.push(...left.slice(0, atLeast - remove.length));
  }
  return remove;
}

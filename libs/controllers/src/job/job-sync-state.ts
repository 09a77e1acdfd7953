import { metaTime } from '@svc/machinery';
import type { Job, JobCondition, JobStatus, Pod } from '@svc/api';
import { isPodActive, isPodReady } from '../common/pod-status';
import { countOf, formatIndexes, hasIndex, parseIndexes, validCompletionIndex, withIndexes, type IndexInterval } from './completion-indexes';
import { findCondition, hasSuccessCriteriaMet, JobReasons, newJobCondition } from './job-conditions';
import { hasTrackingFinalizer, isPodFailedForJob, isPodStopping } from './job-pod-state';
import { calculateFailedIndexes, podsWithDelayedDeletionPerIndex } from './index-failures';
import { nextBackoffRecord, type BackoffRecord } from './pod-failure-backoff';
import { matchPodFailurePolicy } from './pod-failure-policy';
import { matchSuccessPolicy } from './success-policy';

/** Kubernetes' MaxUncountedPods: uids in uncountedTerminatedPods per sync, so that the status stays under 20 KB. */
export const MAX_UNCOUNTED_PODS = 500;

/** What one sync of a Job works on (Kubernetes' syncJobCtx); `job` is a private copy whose status it rewrites. */
export interface JobSyncState {
  job: Job & { status: JobStatus };
  pods: Pod[];
  activePods: Pod[];
  ready: number;
  terminating: number;
  uncountedSucceeded: ReadonlySet<string>;
  uncountedFailed: ReadonlySet<string>;
  /** Pods whose finalizer removal this controller sent and its cache does not show yet. */
  expectedRemovals: ReadonlySet<string>;
  succeeded: number;
  failed: number;
  newBackoff: BackoffRecord;
  /** The condition the Job is heading for (FailureTarget, SuccessCriteriaMet, then Failed, Complete). */
  finishedCondition?: JobCondition;
  prevSucceededIndexes: IndexInterval[];
  succeededIndexes: IndexInterval[];
  failedIndexes?: IndexInterval[];
  delayedDeletion: Map<number, Pod>;
  /** The counters of the status last read or written, against which a write's newly counted pods are told. */
  written: { succeeded?: number; failed?: number };
}

export function isIndexedJob(job: Job): boolean {
  return job.spec.completionMode === 'Indexed';
}

export function isJobSuspended(job: Job): boolean {
  return job.spec.suspend === true;
}

/** A pod not yet counted: it carries the finalizer, is not in the uncounted list given, and (Indexed) has a valid index. */
function notYetCounted(state: Pick<JobSyncState, 'job' | 'expectedRemovals'>, pod: Pod, uncounted: ReadonlySet<string>): boolean {
  const uid = pod.metadata?.uid ?? '';
  if (!hasTrackingFinalizer(pod) || uncounted.has(uid) || state.expectedRemovals.has(uid)) return false;
  return !isIndexedJob(state.job) || validCompletionIndex(pod, state.job.spec.completions ?? 0) >= 0;
}

function nonIgnoredFailures(job: Job, failed: readonly Pod[]): number {
  if (!job.spec.podFailurePolicy) return failed.length;
  return failed.filter((p) => matchPodFailurePolicy(job.spec.podFailurePolicy, p).countFailed).length;
}

/**
 * The start of a sync (Kubernetes' syncJob up to its decisions): counts from the status and the pods
 * not yet counted, startTime on first start, and the backoff after the newly finished pods.
 */
export function newSyncState(cached: Job, pods: Pod[], expectedRemovals: ReadonlySet<string>, backoff: BackoffRecord, nowMs: number): JobSyncState {
  const job = structuredClone(cached) as JobSyncState['job'];
  job.status ??= {};
  job.status.uncountedTerminatedPods ??= {};
  const uncountedSucceeded = new Set(job.status.uncountedTerminatedPods.succeeded ?? []);
  const uncountedFailed = new Set(job.status.uncountedTerminatedPods.failed ?? []);
  const activePods = pods.filter(isPodActive);
  const base = { job, expectedRemovals };
  const newSucceeded = pods.filter((p) => notYetCounted(base, p, uncountedSucceeded) && p.status?.phase === 'Succeeded');
  const newFailed = pods.filter((p) => notYetCounted(base, p, uncountedFailed) && isPodFailedForJob(p, job));
  if (job.status.startTime === undefined && !isJobSuspended(job)) job.status.startTime = metaTime(nowMs);
  return {
    job,
    pods,
    activePods,
    ready: activePods.filter(isPodReady).length,
    terminating: pods.filter(isPodStopping).length,
    uncountedSucceeded,
    uncountedFailed,
    expectedRemovals,
    succeeded: (job.status.succeeded ?? 0) + newSucceeded.length + uncountedSucceeded.size,
    failed: (job.status.failed ?? 0) + nonIgnoredFailures(job, newFailed) + uncountedFailed.size,
    newBackoff: nextBackoffRecord(backoff, newSucceeded, newFailed),
    prevSucceededIndexes: [],
    succeededIndexes: [],
    delayedDeletion: new Map(),
    written: { succeeded: job.status.succeeded, failed: job.status.failed },
  };
}

/** Sum of container restarts of running and pending pods reaches backoffLimit (restartPolicy OnFailure only). */
export function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[]): boolean {
  if (job.spec.template.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    if (pod.status?.phase !== 'Running' && pod.status?.phase !== 'Pending') continue;
    for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) restarts += s.restartCount ?? 0;
  }
  const limit = job.spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** Milliseconds until the active deadline passes, or undefined without one (or while suspended); <= 0 once past. */
export function activeDeadlineRemainingMs(job: Job, nowMs: number): number | undefined {
  const seconds = job.spec.activeDeadlineSeconds;
  const start = job.status?.startTime;
  if (seconds === undefined || !start || isJobSuspended(job)) return undefined;
  return Date.parse(start) + seconds * 1000 - nowMs;
}

/** The first message of a FailJob rule matched by a failed pod, if any. */
export function failJobMessage(job: Job, pods: readonly Pod[]): string | undefined {
  if (!job.spec.podFailurePolicy) return undefined;
  for (const pod of pods) {
    if (!isPodFailedForJob(pod, job)) continue;
    const message = matchPodFailurePolicy(job.spec.podFailurePolicy, pod).failJobMessage;
    if (message !== undefined) return message;
  }
  return undefined;
}

/**
 * Decides whether the Job is failing or succeeding before any pod is touched (Kubernetes' syncJob):
 * an earlier SuccessCriteriaMet or FailureTarget stands; else a FailJob rule; else the backoff limit
 * or the deadline; for Indexed Jobs failed indexes and the success policy. Failures and successes
 * become FailureTarget and SuccessCriteriaMet first (Kubernetes 1.31+): Failed and Complete come
 * once every pod has ended. Returns the wait until the deadline when one is still ahead.
 */
export function decideFinished(state: JobSyncState, nowMs: number): { deadlineInMs?: number } {
  const { job } = state;
  let deadlineInMs: number | undefined;
  state.finishedCondition = hasSuccessCriteriaMet(job);
  if (!state.finishedCondition) {
    const target = findCondition(job.status.conditions, 'FailureTarget');
    if (target?.status === 'True') {
      state.finishedCondition = newJobCondition('Failed', 'True', target.reason ?? '', target.message ?? '', nowMs);
    } else {
      const message = failJobMessage(job, state.pods);
      if (message !== undefined) state.finishedCondition = newJobCondition('FailureTarget', 'True', JobReasons.PodFailurePolicy, message, nowMs);
    }
  }
  if (!state.finishedCondition) {
    const remaining = activeDeadlineRemainingMs(job, nowMs);
    if (state.failed > (job.spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, state.pods)) {
      state.finishedCondition = newJobCondition('FailureTarget', 'True', JobReasons.BackoffLimitExceeded, 'Job has reached the specified backoff limit', nowMs);
    } else if (remaining !== undefined && remaining <= 0) {
      state.finishedCondition = newJobCondition('FailureTarget', 'True', JobReasons.DeadlineExceeded, 'Job was active longer than specified deadline', nowMs);
    } else if (remaining !== undefined) {
      deadlineInMs = remaining;
    }
  }
  if (isIndexedJob(job)) {
    const completions = job.spec.completions ?? 0;
    state.prevSucceededIndexes = parseIndexes(job.status.completedIndexes, completions);
    const newlySucceeded = new Set<number>();
    for (const pod of state.pods) {
      const index = validCompletionIndex(pod, completions);
      if (pod.status?.phase === 'Succeeded' && index >= 0 && hasTrackingFinalizer(pod)) newlySucceeded.add(index);
    }
    state.succeededIndexes = withIndexes(
      state.prevSucceededIndexes,
      [...newlySucceeded].sort((a, b) => a - b),
    );
    state.succeeded = countOf(state.succeededIndexes);
    if (job.spec.backoffLimitPerIndex !== undefined) {
      const tracked = state.pods.filter((p) => hasTrackingFinalizer(p) && !state.expectedRemovals.has(p.metadata?.uid ?? ''));
      state.failedIndexes = calculateFailedIndexes(job, tracked);
      const failedCount = countOf(state.failedIndexes);
      if (!state.finishedCondition) {
        if (job.spec.maxFailedIndexes !== undefined && failedCount > job.spec.maxFailedIndexes) {
          state.finishedCondition = newJobCondition(
            'FailureTarget',
            'True',
            JobReasons.MaxFailedIndexesExceeded,
            'Job has exceeded the specified maximal number of failed indexes',
            nowMs,
          );
        } else if (failedCount > 0 && failedCount + countOf(state.succeededIndexes) >= completions) {
          state.finishedCondition = newJobCondition('FailureTarget', 'True', JobReasons.FailedIndexes, 'Job has failed indexes', nowMs);
        }
      }
      const activeIndexes = new Set(state.activePods.map((p) => validCompletionIndex(p, completions)).filter((i) => i >= 0));
      state.delayedDeletion = podsWithDelayedDeletionPerIndex(job, tracked, state.succeededIndexes, state.failedIndexes, activeIndexes);
    }
    if (!state.finishedCondition) {
      const message = matchSuccessPolicy(job.spec.successPolicy, completions, state.succeededIndexes);
      if (message !== undefined) state.finishedCondition = newJobCondition('SuccessCriteriaMet', 'True', JobReasons.SuccessPolicy, message, nowMs);
    }
  }
  return deadlineInMs === undefined ? {} : { deadlineInMs };
}

/** Complete once enough pods succeeded and none is active (without completions: any success, none active). */
export function reachedCompletions(state: JobSyncState, active: number): boolean {
  const completions = state.job.spec.completions;
  if (completions === undefined) return state.succeeded > 0 && active === 0;
  return state.succeeded >= completions && active === 0;
}

export function completionsReachedCondition(nowMs: number): JobCondition {
  return newJobCondition('SuccessCriteriaMet', 'True', JobReasons.CompletionsReached, 'Reached expected number of succeeded pods', nowMs);
}

/** What the status step decided: whose finalizers go, and whether the status must be written first. */
export interface TrackingPlan {
  podsToRemoveFinalizer: Pod[];
  needsFlush: boolean;
  /** More finished pods remain than one sync counts: the Job is not declared finished this time. */
  reachedMaxUncounted: boolean;
  /** Uids of the pods that still carry the finalizer as far as the status is concerned. */
  uidsWithFinalizer: Set<string>;
  /** Failed pods newly counted whose failure a pod failure policy rule matched, by the rule's action. */
  failurePolicyActions: Map<string, number>;
}

function canRemoveFinalizer(state: JobSyncState, pod: Pod, considerFailed: boolean): boolean {
  if (state.job.metadata?.deletionTimestamp || state.finishedCondition || pod.status?.phase === 'Succeeded') return true;
  if (!considerFailed) return false;
  if (state.job.spec.backoffLimitPerIndex !== undefined) {
    const index = validCompletionIndex(pod, state.job.spec.completions ?? 0);
    // Kept until its replacement is made: the replacement takes its failure count over.
    if (index >= 0 && state.delayedDeletion.get(index)?.metadata?.uid === pod.metadata?.uid) return false;
  }
  return true;
}

/**
 * Moves ended pods into the counts (Kubernetes' trackJobStatusAndRemoveFinalizers, before its
 * writes): uids of ended pods go into uncountedTerminatedPods (an Indexed Job's successes into
 * completedIndexes), and FailureTarget or SuccessCriteriaMet into the conditions, so that the status
 * written before any finalizer is removed records every pod that is about to be released.
 */
export function planTracking(state: JobSyncState, nowMs: number, needsFlush: boolean): TrackingPlan {
  const { job } = state;
  const status = job.status;
  const uncounted = status.uncountedTerminatedPods!;
  const succeededUids = [...(uncounted.succeeded ?? [])];
  const failedUids = [...(uncounted.failed ?? [])];
  const indexed = isIndexedJob(job);
  const completions = job.spec.completions ?? 0;
  const pods = indexed ? [...state.pods].sort((a, b) => validCompletionIndex(a, completions) - validCompletionIndex(b, completions)) : state.pods;
  const uidsWithFinalizer = new Set<string>();
  for (const pod of pods) {
    const uid = pod.metadata?.uid ?? '';
    if (hasTrackingFinalizer(pod) && !state.expectedRemovals.has(uid)) uidsWithFinalizer.add(uid);
  }
  if (cleanUncounted(status, uidsWithFinalizer)) needsFlush = true;
  const podsToRemoveFinalizer: Pod[] = [];
  const failurePolicyActions = new Map<string, number>();
  const newSucceededIndexes: number[] = [];
  let reachedMaxUncounted = false;
  const failing = state.finishedCondition !== undefined && state.finishedCondition.type !== 'SuccessCriteriaMet';
  for (const pod of pods) {
    const uid = pod.metadata?.uid ?? '';
    if (!hasTrackingFinalizer(pod) || state.expectedRemovals.has(uid)) continue;
    const considerFailed = isPodFailedForJob(pod, job);
    if (!canRemoveFinalizer(state, pod, considerFailed)) continue;
    podsToRemoveFinalizer.push(pod);
    if (pod.status?.phase === 'Succeeded' && !state.uncountedFailed.has(uid)) {
      if (indexed) {
        const index = validCompletionIndex(pod, completions);
        if (index >= 0 && !hasIndex(state.prevSucceededIndexes, index)) {
          newSucceededIndexes.push(index);
          needsFlush = true;
        }
      } else if (!state.uncountedSucceeded.has(uid)) {
        succeededUids.push(uid);
        needsFlush = true;
      }
    } else if (considerFailed || failing) {
      // A Job that fails counts every pod it stops as failed.
      const index = validCompletionIndex(pod, completions);
      if (!state.uncountedFailed.has(uid) && (!indexed || index >= 0)) {
        const match = matchPodFailurePolicy(job.spec.podFailurePolicy, pod);
        if (match.action) failurePolicyActions.set(match.action, (failurePolicyActions.get(match.action) ?? 0) + 1);
        if (match.countFailed) {
          failedUids.push(uid);
          needsFlush = true;
        }
      }
    }
    if (newSucceededIndexes.length + succeededUids.length + failedUids.length >= MAX_UNCOUNTED_PODS) {
      reachedMaxUncounted = true;
      break;
    }
  }
  status.uncountedTerminatedPods = {
    ...(succeededUids.length > 0 ? { succeeded: succeededUids } : {}),
    ...(failedUids.length > 0 ? { failed: failedUids } : {}),
  };
  if (indexed) {
    state.succeededIndexes = withIndexes(state.succeededIndexes, newSucceededIndexes);
    const text = formatIndexes(state.succeededIndexes);
    if (text !== (status.completedIndexes ?? '')) needsFlush = true;
    setCount(status, 'succeeded', countOf(state.succeededIndexes));
    if (text === '') delete status.completedIndexes;
    else status.completedIndexes = text;
    const failedText = state.failedIndexes === undefined ? undefined : formatIndexes(state.failedIndexes);
    if (failedText !== status.failedIndexes) {
      if (failedText === undefined) delete status.failedIndexes;
      else status.failedIndexes = failedText;
      needsFlush = true;
    }
  }
  const conditions = (status.conditions ??= []);
  if (state.finishedCondition?.type === 'FailureTarget') {
    conditions.push(state.finishedCondition);
    needsFlush = true;
    const { reason = '', message = '' } = state.finishedCondition;
    state.finishedCondition = newJobCondition('Failed', 'True', reason, message, nowMs);
  }
  if (state.finishedCondition?.type === 'SuccessCriteriaMet') {
    if (!hasSuccessCriteriaMet(job)) {
      conditions.push(state.finishedCondition);
      needsFlush = true;
    }
    const { reason = '', message = '' } = state.finishedCondition;
    state.finishedCondition = newJobCondition('Complete', 'True', reason, message, nowMs);
  }
  if (conditions.length === 0) delete status.conditions;
  return { podsToRemoveFinalizer, needsFlush, reachedMaxUncounted, uidsWithFinalizer, failurePolicyActions };
}

/** Sets a counter as Go's omitempty writes it: absent at zero. */
export function setCount(status: JobStatus, key: 'active' | 'succeeded' | 'failed', value: number): void {
  if (value > 0) status[key] = value;
  else delete status[key];
}

/**
 * Counts the uncounted pods that no longer carry the finalizer (Kubernetes'
 * cleanUncountedPodsWithoutFinalizers): each moves from uncountedTerminatedPods into succeeded or
 * failed exactly once. True when the status changed.
 */
export function cleanUncounted(status: JobStatus, uidsWithFinalizer: ReadonlySet<string>): boolean {
  const uncounted = (status.uncountedTerminatedPods ??= {});
  let changed = false;
  for (const key of ['succeeded', 'failed'] as const) {
    const list = uncounted[key] ?? [];
    const kept = list.filter((uid) => uidsWithFinalizer.has(uid));
    if (kept.length !== list.length) {
      changed = true;
      setCount(status, key, (status[key] ?? 0) + list.length - kept.length);
      if (kept.length > 0) uncounted[key] = kept;
      else delete uncounted[key];
    }
  }
  return changed;
}

/**
 * Sets Complete or Failed once nothing is left uncounted and no pod is still stopping (Kubernetes'
 * enactJobFinished with its 1.31 delay of the terminal condition). True when it did.
 */
export function enactJobFinished(state: JobSyncState, nowMs: number): boolean {
  const condition = state.finishedCondition;
  if (!condition) return false;
  const uncounted = state.job.status.uncountedTerminatedPods;
  if ((uncounted?.succeeded?.length ?? 0) + (uncounted?.failed?.length ?? 0) > 0) return false;
  if (state.terminating > 0) return false;
  const conditions = (state.job.status.conditions ??= []);
  const index = conditions.findIndex((c) => c.type === condition.type);
  const fresh = newJobCondition(condition.type, condition.status, condition.reason ?? '', condition.message ?? '', nowMs);
  if (index >= 0) conditions[index] = fresh;
  else conditions.push(fresh);
  if (condition.type === 'Complete') state.job.status.completionTime = condition.lastTransitionTime;
  return true;
}

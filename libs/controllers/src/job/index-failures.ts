import { JOB_INDEX_FAILURE_COUNT_ANNOTATION, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION, type Job, type Pod } from '@svc/api';
import { hasIndex, parseIndexes, validCompletionIndex, withIndexes, type IndexInterval, type OrderedIntervals } from './completion-indexes';
import type { IndexFailureCounts } from './job-pod';
import { matchPodFailurePolicy } from './pod-failure-policy';
import { podFinishedMs, remainingBackoffMs } from './pod-failure-backoff';
import { isPodFailedForJob } from './job-pod-state';

function countAnnotation(pod: Pod, key: string): number {
  const value = pod.metadata?.annotations?.[key];
  if (value === undefined || !/^[0-9]+$/.test(value)) return 0;
  const n = Number(value);
  return Number.isSafeInteger(n) && n <= 2_147_483_647 ? n : 0;
}

/** The failures of its index before this pod, as its annotation says (counted ones only). */
export function indexFailureCount(pod: Pod): number {
  return countAnnotation(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION);
}

/** Counted and ignored failures of its index before this pod. */
export function indexAbsoluteFailureCount(pod: Pod): number {
  return countAnnotation(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION) + countAnnotation(pod, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
}

/**
 * Whether this failed pod fails its index (Kubernetes' isIndexFailed): a FailIndex rule matched, or
 * its counted failure is one past backoffLimitPerIndex.
 */
export function isIndexFailed(job: Job, pod: Pod): boolean {
  if (!isPodFailedForJob(pod, job)) return false;
  let counted = true;
  if (job.spec.podFailurePolicy) {
    const match = matchPodFailurePolicy(job.spec.podFailurePolicy, pod);
    if (match.action === 'FailIndex') return true;
    counted = match.countFailed;
  }
  return counted && indexFailureCount(pod) >= (job.spec.backoffLimitPerIndex ?? 0);
}

/** `status.failedIndexes` with the indexes this sync's failed pods (still tracked) fail. */
export function calculateFailedIndexes(job: Job, trackedPods: readonly Pod[]): IndexInterval[] {
  const completions = job.spec.completions ?? 0;
  const previous = parseIndexes(job.status?.failedIndexes, completions);
  const failed = new Set<number>();
  for (const pod of trackedPods) {
    const index = validCompletionIndex(pod, completions);
    if (index >= 0 && isIndexFailed(job, pod)) failed.add(index);
  }
  return withIndexes(
    previous,
    [...failed].sort((a, b) => a - b),
  );
}

/**
 * For each index neither succeeded, failed nor running, its latest failed pod (still tracked): its
 * finalizer stays until the replacement is made, which takes the counts over from it (Kubernetes'
 * getPodsWithDelayedDeletionPerIndex).
 */
export function podsWithDelayedDeletionPerIndex(
  job: Job,
  trackedPods: readonly Pod[],
  succeeded: OrderedIntervals,
  failed: OrderedIntervals,
  activeIndexes: ReadonlySet<number>,
): Map<number, Pod> {
  const completions = job.spec.completions ?? 0;
  const latest = new Map<number, Pod>();
  for (const pod of trackedPods) {
    if (!isPodFailedForJob(pod, job)) continue;
    const index = validCompletionIndex(pod, completions);
    if (index < 0 || hasIndex(succeeded, index) || hasIndex(failed, index) || activeIndexes.has(index)) continue;
    const previous = latest.get(index);
    if (!previous || (indexAbsoluteFailureCount(previous) <= indexAbsoluteFailureCount(pod) && podFinishedMs(pod) >= podFinishedMs(previous))) {
      latest.set(index, pod);
    }
  }
  return latest;
}

/** The counts the replacement of `replaced` carries: its own plus its failure, counted or ignored by the policy. */
export function newIndexFailureCounts(job: Job, replaced: Pod | undefined): IndexFailureCounts {
  if (!replaced) return { failures: 0, ignored: 0 };
  let failures = countAnnotation(replaced, JOB_INDEX_FAILURE_COUNT_ANNOTATION);
  let ignored = countAnnotation(replaced, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
  if (job.spec.podFailurePolicy && !matchPodFailurePolicy(job.spec.podFailurePolicy, replaced).countFailed) ignored++;
  else failures++;
  return { failures, ignored };
}

/** How long an index waits before its next pod, after its pod `lastFailed` failed (0: now). */
export function remainingIndexBackoffMs(lastFailed: Pod | undefined, nowMs: number): number {
  if (!lastFailed) return 0;
  return remainingBackoffMs(indexAbsoluteFailureCount(lastFailed) + 1, podFinishedMs(lastFailed), nowMs);
}

import type { Job } from '@svc/api';

/** A Job to clean up: finished (Complete or Failed True) with ttlSecondsAfterFinished set (Kubernetes' needsCleanup). */
export function needsCleanup(job: Job): boolean {
  return job.spec?.ttlSecondsAfterFinished !== undefined && finishedAtMs(job) !== undefined;
}

/**
 * When the Job finished: the lastTransitionTime of its Complete or Failed condition that is True
 * (Kubernetes' jobFinishTime); undefined when it has not finished or the time cannot be read.
 */
export function finishedAtMs(job: Job): number | undefined {
  for (const condition of job.status?.conditions ?? []) {
    if ((condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True') {
      const at = condition.lastTransitionTime ? Date.parse(condition.lastTransitionTime) : NaN;
      return Number.isFinite(at) ? at : undefined;
    }
  }
  return undefined;
}

/**
 * Milliseconds until the Job's TTL expires (<= 0: expired), or undefined when it needs no cleanup:
 * not finished, no TTL, or already being deleted (Kubernetes' processTTL).
 */
export function ttlRemainingMs(job: Job, nowMs: number): number | undefined {
  if (job.metadata?.deletionTimestamp || job.spec?.ttlSecondsAfterFinished === undefined) return undefined;
  const finished = finishedAtMs(job);
  if (finished === undefined) return undefined;
  return finished + job.spec.ttlSecondsAfterFinished * 1000 - nowMs;
}

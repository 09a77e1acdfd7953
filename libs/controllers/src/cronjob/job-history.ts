import type { Job } from '@svc/api';

/** How a Job ended: a Complete or Failed condition that is True (Kubernetes' getFinishedStatus). */
export function finishedCondition(job: Job): 'Complete' | 'Failed' | undefined {
  for (const condition of job.status?.conditions ?? []) {
    if ((condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True') return condition.type;
  }
  return undefined;
}

export function isJobFinished(job: Job): boolean {
  return finishedCondition(job) !== undefined;
}

function startMs(job: Job): number | undefined {
  const start = job.status?.startTime;
  if (start === undefined) return undefined;
  const ms = Date.parse(start);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Oldest start first, Jobs never started last, then by name (Kubernetes' byJobStartTime). */
export function byJobStartTime(a: Job, b: Job): number {
  const sa = startMs(a);
  const sb = startMs(b);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb) {
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  return (sa ?? 0) - (sb ?? 0);
}

export interface HistoryLimits {
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

/**
 * The finished Jobs beyond the CronJob's history limits, oldest first: the succeeded ones beyond
 * `successfulJobsHistoryLimit`, then the failed ones beyond `failedJobsHistoryLimit` (an unset limit
 * keeps them all). Running Jobs are never among them.
 */
export function jobsBeyondHistoryLimits(jobs: readonly Job[], limits: HistoryLimits): Job[] {
  const succeeded = jobs.filter((j) => finishedCondition(j) === 'Complete');
  const failed = jobs.filter((j) => finishedCondition(j) === 'Failed');
  return [...oldestBeyond(succeeded, limits.successfulJobsHistoryLimit), ...oldestBeyond(failed, limits.failedJobsHistoryLimit)];
}

function oldestBeyond(jobs: Job[], limit: number | undefined): Job[] {
  if (limit === undefined || jobs.length <= limit) return [];
  return [...jobs].sort(byJobStartTime).slice(0, jobs.length - limit);
}

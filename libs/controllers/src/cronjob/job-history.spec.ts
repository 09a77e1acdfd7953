import type { Job } from '@svc/api';
import { byJobStartTime, finishedCondition, jobsBeyondHistoryLimits } from './job-history';

function job(name: string, ended?: 'Complete' | 'Failed', startTime?: string): Job {
  return {
    metadata: { name },
    spec: { template: { spec: { containers: [] } } },
    status: {
      ...(startTime !== undefined && { startTime }),
      ...(ended !== undefined && { conditions: [{ type: ended, status: 'True' }] }),
    },
  };
}

const names = (jobs: Job[]) => jobs.map((j) => j.metadata?.name);

describe("a CronJob's finished Jobs and its history limits", () => {
  it('calls a Job finished by a True Complete or Failed condition only', () => {
    expect(finishedCondition(job('a', 'Complete'))).toBe('Complete');
    expect(finishedCondition(job('a', 'Failed'))).toBe('Failed');
    expect(finishedCondition(job('a'))).toBeUndefined();
    const pending = job('a');
    pending.status = {
      conditions: [
        { type: 'Complete', status: 'False' },
        { type: 'FailureTarget', status: 'True' },
      ] as never,
    };
    expect(finishedCondition(pending)).toBeUndefined();
  });

  it('orders by start time, Jobs never started last, names breaking ties', () => {
    const jobs = [
      job('d'),
      job('c', 'Complete', '2026-03-04T10:02:00Z'),
      job('b', 'Complete', '2026-03-04T10:01:00Z'),
      job('a'),
      job('e', 'Complete', '2026-03-04T10:01:00Z'),
    ];
    expect(names([...jobs].sort(byJobStartTime))).toEqual(['b', 'e', 'c', 'a', 'd']);
  });

  it('deletes the oldest succeeded beyond one limit and the oldest failed beyond the other, never a running Job', () => {
    const jobs = [
      job('ok-3', 'Complete', '2026-03-04T10:03:00Z'),
      job('ok-1', 'Complete', '2026-03-04T10:01:00Z'),
      job('ok-2', 'Complete', '2026-03-04T10:02:00Z'),
      job('bad-2', 'Failed', '2026-03-04T10:05:00Z'),
      job('bad-1', 'Failed', '2026-03-04T10:04:00Z'),
      job('running', undefined, '2026-03-04T09:00:00Z'),
    ];
    expect(names(jobsBeyondHistoryLimits(jobs, { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1 }))).toEqual(['ok-1', 'ok-2', 'bad-1']);
    expect(names(jobsBeyondHistoryLimits(jobs, { successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 5 }))).toEqual(['ok-1', 'ok-2', 'ok-3']);
    // An unset limit keeps every Job of its kind.
    expect(names(jobsBeyondHistoryLimits(jobs, { failedJobsHistoryLimit: 0 }))).toEqual(['bad-1', 'bad-2']);
    expect(jobsBeyondHistoryLimits(jobs, {})).toEqual([]);
  });
});

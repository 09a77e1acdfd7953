import type { CronJob } from '@svc/api';
import { jobFromTemplate, jobNameFor } from './job-from-template';

function cronJob(timeZone?: string): CronJob {
  return {
    metadata: { name: 'report', namespace: 'team', uid: 'uid-1' },
    spec: {
      schedule: '*/5 * * * *',
      ...(timeZone !== undefined && { timeZone }),
      jobTemplate: {
        metadata: { labels: { app: 'report' }, annotations: { owner: 'finance' } },
        spec: { backoffLimit: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
      },
    },
  };
}

describe('the Job a CronJob makes for a scheduled time', () => {
  const scheduled = Date.parse('2026-03-04T10:05:00Z');

  it('is named after the minutes since the epoch', () => {
    expect(jobNameFor('report', scheduled)).toBe('report-29543645');
    expect(jobNameFor('report', scheduled + 59_000)).toBe('report-29543645');
  });

  it("carries the template's labels, annotations and spec, the CronJob as controller, and the scheduled time", () => {
    const source = cronJob();
    const job = jobFromTemplate(source, scheduled);
    expect(job.metadata).toEqual({
      name: 'report-29543645',
      namespace: 'team',
      labels: { app: 'report' },
      annotations: { owner: 'finance', 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-03-04T10:05:00Z' },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'report', uid: 'uid-1', controller: true, blockOwnerDeletion: true }],
    });
    expect(job.spec).toEqual(source.spec.jobTemplate.spec);
    // A copy: the cached CronJob is never changed through its Job.
    expect(job.spec.template).not.toBe(source.spec.jobTemplate.spec?.template);
  });

  it("writes the scheduled time in the CronJob's time zone", () => {
    expect(jobFromTemplate(cronJob('Asia/Kolkata'), scheduled).metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe(
      '2026-03-04T15:35:00+05:30',
    );
  });
});

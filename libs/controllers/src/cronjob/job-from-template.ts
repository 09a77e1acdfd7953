import { CRON_JOB_SCHEDULED_TIMESTAMP_ANNOTATION, formatRfc3339InZone, type CronJob, type Job } from '@svc/api';
import { controllerReference } from '@svc/runtime';

export const CRON_JOB_KIND = { apiVersion: 'batch/v1', kind: 'CronJob' } as const;

/**
 * The name of the Job for one scheduled time: `<cronjob>-<minutes since the epoch>`. The same time
 * always gives the same name, so a Job is never made twice for one run, even by a controller that
 * restarted between creating it and recording it.
 */
export function jobNameFor(cronJobName: string, scheduledMs: number): string {
  return `${cronJobName}-${Math.floor(scheduledMs / 60_000)}`;
}

/**
 * The Job the CronJob makes for a scheduled time (Kubernetes' getJobFromTemplate2): the template's
 * labels, annotations and spec, the CronJob as controller owner, and the scheduled time in the
 * scheduled-timestamp annotation, read in the CronJob's time zone (UTC when it names none).
 */
export function jobFromTemplate(cronJob: CronJob, scheduledMs: number): Job {
  const template = cronJob.spec.jobTemplate;
  const annotations: Record<string, string> = { ...template.metadata?.annotations };
  annotations[CRON_JOB_SCHEDULED_TIMESTAMP_ANNOTATION] = formatRfc3339InZone(scheduledMs, cronJob.spec.timeZone ?? 'UTC');
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobNameFor(cronJob.metadata?.name ?? '', scheduledMs),
      namespace: cronJob.metadata?.namespace,
      labels: { ...template.metadata?.labels },
      annotations,
      ownerReferences: [controllerReference(cronJob, CRON_JOB_KIND)],
    },
    spec: structuredClone(template.spec ?? {}) as Job['spec'],
  };
}

import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Int64, ListAtomic } from '../../schema/builders';
import { OptionalTime } from '../../meta/condition';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ObjectReferenceSchema } from '../core/object-reference';
import { JobTemplateSpecSchema } from './job';

/** The annotation on a CronJob's Job: the time it was scheduled for (RFC 3339, in the CronJob's time zone). */
export const CRON_JOB_SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** In the order Kubernetes lists them when a policy is not supported. */
export const ConcurrencyPolicies = ['Allow', 'Forbid', 'Replace'] as const;

export const CronJobSpecSchema = Type.Object({
  schedule: Type.String(),
  timeZone: Type.Optional(Type.String()),
  startingDeadlineSeconds: Type.Optional(Int64({ minimum: 0 })),
  // Checked by the kind's rules: Kubernetes refuses an empty policy as Required, not as an unsupported value.
  concurrencyPolicy: Type.Optional(Type.String({ default: 'Allow' })),
  suspend: Type.Optional(Type.Boolean({ default: false })),
  jobTemplate: JobTemplateSpecSchema,
  successfulJobsHistoryLimit: Type.Optional(Int32({ minimum: 0, default: 3 })),
  failedJobsHistoryLimit: Type.Optional(Int32({ minimum: 0, default: 1 })),
});

export const CronJobStatusSchema = Type.Object({
  active: Type.Optional(ListAtomic(ObjectReferenceSchema)),
  lastScheduleTime: OptionalTime(),
  lastSuccessfulTime: OptionalTime(),
});

export const CronJobSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: CronJobSpecSchema,
  status: Type.Optional(CronJobStatusSchema),
});
export type CronJob = Static<typeof CronJobSchema>;
export type CronJobList = List<CronJob>;
export type CronJobSpec = Static<typeof CronJobSpecSchema>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  CronJobSpecSchema,
  {
    schedule:
      'When to make a Job, in cron syntax: five fields (minute, hour, day of month, month, day of week; `*`, lists, ranges and steps) or a macro such as @hourly, @daily or @every 1h30m.',
    timeZone:
      'The IANA time zone the schedule is read in, such as Europe/Paris; the controller manager’s own zone when left out. TZ= or CRON_TZ= in the schedule is refused: use this field.',
    startingDeadlineSeconds: 'How late a Job may still be started after its scheduled time; a run missed by more is skipped and counted as missed.',
    concurrencyPolicy:
      'What to do when a run is due while a Job of the CronJob still runs: Allow (start another, the default), Forbid (skip the run) or Replace (stop the running Job and start the new one).',
    suspend: 'While true, no Job is started (those that run go on); false by default.',
    jobTemplate: 'The Job to make at each scheduled time.',
    successfulJobsHistoryLimit: 'How many finished successful Jobs are kept; 3 by default.',
    failedJobsHistoryLimit: 'How many finished failed Jobs are kept; 1 by default.',
  },
  'When a CronJob makes Jobs and which.',
);
describeFields(
  CronJobStatusSchema,
  {
    active: 'The Jobs of the CronJob that are running.',
    lastScheduleTime: 'The scheduled time of the last Job started.',
    lastSuccessfulTime: 'When a Job of the CronJob last completed successfully.',
  },
  'What the cronjob controller last observed of a CronJob.',
);
(CronJobSchema as { description?: string }).description = 'Makes a Job at times given by a cron schedule.';

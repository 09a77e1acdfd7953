import { isRecord } from '@svc/machinery';
import { ConcurrencyPolicies, CronJobSchema, type CronJob } from '../../kinds/batch/cron-job';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { timestampSince } from '../human-duration';
import { as, defineKind } from './define-kind';
import { CronScheduleError, parseCronSchedule, timeZoneError } from './cron-schedule';
import { jobSpecErrors } from './job-definition';
import { defaultPodSpec } from './pod-spec-rules';
import { containerCells, selectorCell } from './workload-rules';

/** The cronjob controller names a CronJob's Jobs `<cronjob>-<minutes since the epoch>`: 11 characters more than a Job name may have. */
const MAX_CRON_JOB_NAME_LENGTH = 63 - 11;

function specOf(obj: ApiObject | undefined): Record<string, unknown> {
  return obj && isRecord(obj.spec) ? obj.spec : {};
}

function jobTemplateSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const template = isRecord(spec.jobTemplate) ? spec.jobTemplate : {};
  return isRecord(template.spec) ? template.spec : {};
}

/** validateScheduleFormat: robfig/cron's error, then Kubernetes' refusal of a time zone in the schedule. */
function scheduleErrors(schedule: string, allowTimeZoneInSchedule: boolean, timeZone: unknown): FieldError[] {
  const errors: FieldError[] = [];
  try {
    parseCronSchedule(schedule);
  } catch (error) {
    if (!(error instanceof CronScheduleError)) throw error;
    errors.push(fieldErrors.invalid('spec.schedule', schedule, error.message));
  }
  if (schedule.includes('TZ')) {
    // A CronJob stored with a time zone in its schedule (before the field existed) may keep it.
    if (!allowTimeZoneInSchedule) {
      errors.push(fieldErrors.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    } else if (timeZone !== undefined) {
      errors.push(fieldErrors.invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    }
  }
  return errors;
}

/** ValidateCronJobCreate and ValidateCronJobUpdate (apart from the metadata rules every kind has). */
function validateCronJob(cronJob: ApiObject, current?: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = specOf(cronJob);
  const old = current ? specOf(current) : undefined;
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (schedule === '') errors.push(fieldErrors.required('spec.schedule'));
  else errors.push(...scheduleErrors(schedule, typeof old?.schedule === 'string' && old.schedule.includes('TZ'), spec.timeZone));
  // A time zone stored before this server knew it unknown is left alone until it changes.
  if (typeof spec.timeZone === 'string' && (old === undefined || old.timeZone !== spec.timeZone)) {
    const detail = timeZoneError(spec.timeZone);
    if (detail !== undefined) errors.push(fieldErrors.invalid('spec.timeZone', spec.timeZone, detail));
  }
  const policy = spec.concurrencyPolicy;
  if (policy === '' || policy === undefined) errors.push(fieldErrors.required('spec.concurrencyPolicy'));
  else if (!(ConcurrencyPolicies as readonly unknown[]).includes(policy))
    errors.push(fieldErrors.notSupported('spec.concurrencyPolicy', policy, ConcurrencyPolicies));
  // ValidateJobTemplateSpec: the Job's checks, with a selector the Jobs always get from the server.
  const jobSpec = jobTemplateSpec(spec);
  errors.push(...jobSpecErrors(jobSpec, 'spec.jobTemplate.spec'));
  if (jobSpec.selector !== undefined) errors.push(fieldErrors.invalid('spec.jobTemplate.spec.selector', jobSpec.selector, '`selector` will be auto-generated'));
  if (jobSpec.manualSelector === true) errors.push(fieldErrors.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  // Only new CronJobs: one stored with a longer name may still be changed and deleted.
  const name = cronJob.metadata?.name ?? '';
  if (current === undefined && name.length > MAX_CRON_JOB_NAME_LENGTH) {
    errors.push(fieldErrors.invalid('metadata.name', name, `must be no more than ${MAX_CRON_JOB_NAME_LENGTH} characters`));
  }
  return errors;
}

/** Kubernetes' printBoolPtr. */
function boolCell(value: boolean | undefined): string {
  return value === undefined ? '<unset>' : value ? 'True' : 'False';
}

/** Kubernetes' CronJob (batch/v1), run by the cronjob controller. */
export const cronJobDefinition = defineKind({
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  resource: 'cronjobs',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  subresources: { status: true },
  strategy: {
    podSpec: { path: ['spec', 'jobTemplate', 'spec', 'template', 'spec'], template: true },
    // cronJobStrategy.PrepareForCreate: an empty status.
    prepareForCreate(cronJob) {
      cronJob.status = {};
    },
  },
  schema: CronJobSchema,
  columns: [
    nameColumn(),
    column('Schedule', 'string', (o) => as<CronJob>(o).spec?.schedule ?? '', {
      description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.',
    }),
    column('Timezone', 'string', (o) => as<CronJob>(o).spec?.timeZone ?? '<none>', {
      description:
        'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones',
    }),
    column('Suspend', 'boolean', (o) => boolCell(as<CronJob>(o).spec?.suspend), {
      description: 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.',
    }),
    column('Active', 'integer', (o) => (as<CronJob>(o).status?.active ?? []).length, { description: 'A list of pointers to currently running jobs.' }),
    column(
      'Last Schedule',
      'string',
      (o, { now }) => {
        const last = as<CronJob>(o).status?.lastScheduleTime;
        return last === undefined ? '<none>' : timestampSince(last, now);
      },
      { description: 'Information when was the last time the job was successfully scheduled.' },
    ),
    ageColumn(),
    column('Containers', 'string', (o) => containerCells(as<CronJob>(o).spec?.jobTemplate?.spec?.template?.spec?.containers).names, {
      priority: 1,
      description: 'Names of each container in the template.',
    }),
    column('Images', 'string', (o) => containerCells(as<CronJob>(o).spec?.jobTemplate?.spec?.template?.spec?.containers).images, {
      priority: 1,
      description: 'Images referenced by each container in the template.',
    }),
    column('Selector', 'string', (o) => selectorCell(as<CronJob>(o).spec?.jobTemplate?.spec?.selector), {
      priority: 1,
      description:
        'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
    }),
  ],
  defaultHooks: [
    (o) => {
      const template = jobTemplateSpec(specOf(o)).template;
      defaultPodSpec(isRecord(template) ? template.spec : undefined);
    },
  ],
  validationRules: [validateCronJob],
});

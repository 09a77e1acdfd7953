import { isIanaTimeZone, nextCronTime, parseCronSchedule, type CronJob, type CronSchedule, type Job, type ObjectReference } from '@svc/api';
import { BUILTIN_RESOURCES, Client, type ResourceClient } from '@svc/client';
import { errorMessage, isAlreadyExists, isNamespaceTerminating, isNotFound, metaTime } from '@svc/machinery';
import {
  cacheIndex,
  EventRecorder,
  getControllerOf,
  Reconciler,
  type EventType,
  type MetaObject,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type Result,
} from '@svc/runtime';
import { RateLimitedEvents } from '../common/rate-limited-events';
import { CronJobOptions } from './cronjob-options';
import { CRON_JOB_KIND, jobFromTemplate, jobNameFor } from './job-from-template';
import { finishedCondition, jobsBeyondHistoryLimits } from './job-history';
import { dueScheduleTime, nextSyncDelayMs, type NextTime } from './schedule-times';

/** The controller's name: `--controllers`, metrics and logs. */
export const CRONJOB_CONTROLLER_NAME = 'cronjob';

const JOBS_BY_CRON_JOB = 'cronjob-controller/jobs-by-cronjob';

/** The Jobs a CronJob controls, by `namespace/name` of the CronJob their controller reference names. */
const jobsByCronJob = cacheIndex(BUILTIN_RESOURCES.jobs, JOBS_BY_CRON_JOB, (job) => {
  const ref = getControllerOf(job);
  return ref?.kind === CRON_JOB_KIND.kind && ref.apiVersion.startsWith('batch/') ? [`${job.metadata?.namespace ?? ''}/${ref.name}`] : [];
});

/** What one sync decided: whether the status it edited must be written, and when to look again. */
interface SyncOutcome {
  updateStatus: boolean;
  requeueAfterMs?: number;
  error?: Error;
}

/** Kubernetes' RFC 1123 with a numeric zone, in UTC: `Mon, 07 Dec 2026 14:00:00 +0000`. */
function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace(/GMT$/, '+0000');
}

function inActiveList(cronJob: CronJob, uid: string | undefined): boolean {
  return (cronJob.status?.active ?? []).some((ref) => ref.uid === uid);
}

function removeFromActiveList(cronJob: CronJob, uid: string | undefined): void {
  cronJob.status = { ...cronJob.status, active: (cronJob.status?.active ?? []).filter((ref) => ref.uid !== uid) };
}

/** The reference `status.active` keeps to a Job (client-go's GetReference). */
function jobReference(job: Job): ObjectReference {
  return {
    kind: 'Job',
    namespace: job.metadata?.namespace,
    name: job.metadata?.name,
    uid: job.metadata?.uid,
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata?.resourceVersion,
  };
}

/**
 * Kubernetes' cronjob controller (v2): at each time the schedule fires it makes a Job from the
 * CronJob's template, named after the scheduled minute so a run is never made twice, as the
 * concurrency policy allows (Allow, Forbid: skip while one runs, Replace: delete the running one
 * first); it counts missed runs without walking them (more than 100: an event and only the latest
 * runs), honours the starting deadline and suspend, keeps `status.active`, `lastScheduleTime` and
 * `lastSuccessfulTime`, and deletes the oldest finished Jobs beyond the history limits.
 *
 * It does not poll: each sync asks to run again just after the next scheduled time, and a change
 * of the CronJob or of one of its Jobs syncs it at once.
 */
@Reconciler({
  name: CRONJOB_CONTROLLER_NAME,
  for: BUILTIN_RESOURCES.cronJobs,
  owns: [BUILTIN_RESOURCES.jobs],
  indexes: [jobsByCronJob],
})
export class CronJobReconciler implements Reconcile {
  private readonly jobs: ResourceClient<Job>;
  private readonly cronJobs: ResourceClient<CronJob>;
  private readonly events: RateLimitedEvents;
  /** The schedule (with its zone) each CronJob had at its last reconcile, by `namespace/name`. */
  private readonly schedulesSeen = new Map<string, { uid?: string; text: string }>();

  constructor(
    client: Client,
    private readonly options: CronJobOptions,
  ) {
    this.jobs = client.jobs;
    this.cronJobs = client.cronJobs;
    this.events = new RateLimitedEvents(new EventRecorder(client, { component: 'cronjob-controller' }));
  }

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const key = `${namespace}/${name}`;
    const cached = cache.get(BUILTIN_RESOURCES.cronJobs, { namespace, name });
    if (!cached) {
      this.schedulesSeen.delete(key);
      return {};
    }
    // Every change of this sync goes into one copy, written once at the end.
    const cronJob = { ...structuredClone(cached), ...CRON_JOB_KIND } as CronJob;
    const rescheduled = this.rescheduled(key, cronJob);
    if (rescheduled) return rescheduled;
    const jobs = cache.byIndex(BUILTIN_RESOURCES.jobs, JOBS_BY_CRON_JOB, `${namespace}/${name}`);

    const cleaned = await this.cleanupFinishedJobs(cronJob, jobs);
    const outcome = await this.syncCronJob(cronJob, jobs);
    if (cleaned || outcome.updateStatus) await this.cronJobs.updateStatus(outcome.cronJob, { namespace });
    if (outcome.requeueAfterMs !== undefined) return { requeueAfter: Math.max(1, outcome.requeueAfterMs) };
    if (outcome.error) throw outcome.error;
    return {};
  }

  /**
   * Kubernetes syncs a CronJob whose schedule or time zone just changed only at the new schedule's
   * next time (any other change syncs it at once), so that runs the new schedule "missed" before
   * it existed are not started: the first reconcile that sees a new schedule only asks for that time.
   */
  private rescheduled(key: string, cronJob: CronJob): Result | undefined {
    const schedule = { uid: cronJob.metadata?.uid, text: `${cronJob.spec.timeZone ?? ''} ${cronJob.spec.schedule}` };
    const seen = this.schedulesSeen.get(key);
    this.schedulesSeen.set(key, schedule);
    // A CronJob made anew under the same name is new, whatever its predecessor's schedule.
    if (seen === undefined || seen.uid !== schedule.uid || seen.text === schedule.text) return undefined;
    let parsed: CronSchedule;
    try {
      parsed = this.schedule(cronJob, false);
    } catch {
      this.emit(cronJob, 'Warning', 'UnParseableCronJobSchedule', `unparseable schedule for cronjob: ${cronJob.spec.schedule}`);
      return {};
    }
    const delay = nextSyncDelayMs(cronJob, this.options.now(), (afterMs) => nextCronTime(parsed, afterMs, this.options.defaultTimeZone));
    return delay === undefined ? {} : { requeueAfter: Math.max(1, delay) };
  }

  private emit(cronJob: CronJob, type: EventType, reason: string, message: string): void {
    const subject: MetaObject = { ...CRON_JOB_KIND, metadata: cronJob.metadata };
    this.events.emit(subject, type, reason, message);
  }

  /** Deletes the oldest finished Jobs beyond the history limits; true when the active list changed. */
  private async cleanupFinishedJobs(cronJob: CronJob, jobs: readonly Job[]): Promise<boolean> {
    const { successfulJobsHistoryLimit, failedJobsHistoryLimit } = cronJob.spec;
    if (successfulJobsHistoryLimit === undefined && failedJobsHistoryLimit === undefined) return false;
    let changed = false;
    for (const job of jobsBeyondHistoryLimits(jobs, { successfulJobsHistoryLimit, failedJobsHistoryLimit })) {
      if (await this.deleteJob(cronJob, job)) changed = true;
    }
    return changed;
  }

  /** Deletes a Job (its pods in the background) and drops it from the active list; false when that failed. */
  private async deleteJob(cronJob: CronJob, job: Job): Promise<boolean> {
    const name = job.metadata?.name ?? '';
    try {
      await this.jobs.delete(name, { namespace: job.metadata?.namespace, propagationPolicy: 'Background' });
    } catch (error) {
      this.emit(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${errorMessage(error)}`);
      return false;
    }
    removeFromActiveList(cronJob, job.metadata?.uid);
    this.emit(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`);
    return true;
  }

  /** The schedule as Kubernetes reads it (`formatSchedule`): a time zone in the schedule wins, with a warning. */
  private schedule(cronJob: CronJob, warn = true): CronSchedule {
    const { schedule, timeZone } = cronJob.spec;
    if (schedule.includes('TZ')) {
      if (warn)
        this.emit(
          cronJob,
          'Warning',
          'UnsupportedSchedule',
          `CRON_TZ or TZ used in schedule ${JSON.stringify(schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`,
        );
      return parseCronSchedule(schedule);
    }
    const parsed = parseCronSchedule(schedule);
    return timeZone !== undefined && isIanaTimeZone(timeZone) ? { ...parsed, timeZone } : parsed;
  }

  /** Kubernetes' syncCronJob: edits `cronJob` (its status) in place and says whether to write it. */
  private async syncCronJob(initial: CronJob, jobs: readonly Job[]): Promise<SyncOutcome & { cronJob: CronJob }> {
    let cronJob = initial;
    const nowMs = this.options.now();
    let updateStatus = false;
    const done = ({ requeueAfterMs, error }: { requeueAfterMs?: number; error?: unknown } = {}) => ({
      updateStatus,
      cronJob,
      ...(requeueAfterMs !== undefined && { requeueAfterMs }),
      ...(error !== undefined && { error: error instanceof Error ? error : new Error(errorMessage(error)) }),
    });
    const namespace = cronJob.metadata?.namespace ?? '';

    const children = new Set<string>();
    for (const job of jobs) {
      const uid = job.metadata?.uid ?? '';
      children.add(uid);
      const found = inActiveList(cronJob, uid);
      const finished = finishedCondition(job);
      if (!found && finished === undefined) {
        // The cache may be behind the CronJob's own status: ask the server before calling it unexpected.
        let fresh: CronJob;
        try {
          fresh = await this.cronJobs.get(cronJob.metadata?.name ?? '', { namespace });
        } catch (error) {
          return done({ error });
        }
        if (inActiveList(fresh, uid)) {
          cronJob = { ...fresh, ...CRON_JOB_KIND };
          continue;
        }
        this.emit(cronJob, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata?.name}`);
      } else if (finished !== undefined) {
        if (found) {
          removeFromActiveList(cronJob, uid);
          this.emit(cronJob, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata?.name}, condition: ${finished}`);
          updateStatus = true;
        }
        const completion = job.status?.completionTime;
        if (finished === 'Complete' && completion !== undefined) {
          const last = cronJob.status?.lastSuccessfulTime;
          if (last === undefined || Date.parse(completion) > Date.parse(last)) {
            cronJob.status = { ...cronJob.status, lastSuccessfulTime: completion };
            updateStatus = true;
          }
        }
      }
    }

    // An active Job that no longer exists would hold a Forbid CronJob back for ever.
    for (const ref of [...(cronJob.status?.active ?? [])]) {
      if (children.has(ref.uid ?? '')) continue;
      try {
        // Asked of the server: the cache may simply not show it yet.
        await this.jobs.get(ref.name ?? '', { namespace: ref.namespace });
      } catch (error) {
        if (!isNotFound(error)) return done({ error });
        this.emit(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        removeFromActiveList(cronJob, ref.uid);
        updateStatus = true;
      }
    }

    if (cronJob.metadata?.deletionTimestamp) return done();

    const timeZone = cronJob.spec.timeZone;
    if (timeZone !== undefined && !isIanaTimeZone(timeZone)) {
      this.emit(cronJob, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(timeZone)}: unknown time zone ${timeZone}`);
      return done();
    }
    if (cronJob.spec.suspend === true) return done();

    let schedule: CronSchedule;
    try {
      schedule = this.schedule(cronJob);
    } catch (error) {
      this.emit(cronJob, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(cronJob.spec.schedule)} : ${errorMessage(error)}`);
      return done();
    }
    const next: NextTime = (afterMs) => nextCronTime(schedule, afterMs, this.options.defaultTimeZone);
    const requeue = () => nextSyncDelayMs(cronJob, nowMs, next);

    const due = dueScheduleTime(cronJob, nowMs, next);
    if (due.error !== undefined) {
      this.emit(cronJob, 'Warning', 'InvalidSchedule', `invalid schedule: ${cronJob.spec.schedule} : ${due.error}`);
      return done();
    }
    if (due.scheduledMs === undefined) return done({ requeueAfterMs: requeue() });
    const scheduledMs = due.scheduledMs;
    if (due.missed === 'many') {
      this.emit(cronJob, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    }

    const deadline = cronJob.spec.startingDeadlineSeconds;
    if (deadline !== undefined && scheduledMs + deadline * 1000 < nowMs) {
      this.emit(cronJob, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduledMs)}`);
      return done({ requeueAfterMs: requeue() });
    }
    const jobName = jobNameFor(cronJob.metadata?.name ?? '', scheduledMs);
    const lastSchedule = cronJob.status?.lastScheduleTime;
    const alreadyStarted =
      (cronJob.status?.active ?? []).some((ref) => ref.name === jobName && ref.namespace === namespace) ||
      (lastSchedule !== undefined && Date.parse(lastSchedule) === scheduledMs);
    if (alreadyStarted) return done({ requeueAfterMs: requeue() });

    const policy = cronJob.spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && (cronJob.status?.active ?? []).length > 0) {
      this.emit(cronJob, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return done({ requeueAfterMs: requeue() });
    }
    if (policy === 'Replace') {
      for (const ref of [...(cronJob.status?.active ?? [])]) {
        let running: Job;
        try {
          running = await this.jobs.get(ref.name ?? '', { namespace: ref.namespace });
        } catch (error) {
          this.emit(cronJob, 'Warning', 'FailedGet', `Get job: ${errorMessage(error)}`);
          return done({ error });
        }
        if (!(await this.deleteJob(cronJob, running))) {
          return done({ error: new Error(`could not replace job ${running.metadata?.namespace}/${running.metadata?.name}`) });
        }
        updateStatus = true;
      }
    }

    let created: Job;
    try {
      created = await this.jobs.create(jobFromTemplate(cronJob, scheduledMs), { namespace });
      this.emit(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name}`);
      this.options.creationSkew?.observe(Math.max(0, this.options.now() - scheduledMs) / 1000);
    } catch (error) {
      // Every create fails in a namespace going away, and the namespace takes the CronJob with it.
      if (isNamespaceTerminating(error)) return done({ error });
      if (!isAlreadyExists(error)) {
        this.emit(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${errorMessage(error)}`);
        return done({ error });
      }
      // Made before (by this controller, whose status write was then lost) or by someone else.
      try {
        created = await this.jobs.get(jobName, { namespace });
      } catch (getError) {
        return done({ error: getError });
      }
      if (getControllerOf(created)?.uid !== cronJob.metadata?.uid || inActiveList(cronJob, created.metadata?.uid)) return done();
    }

    cronJob.status = {
      ...cronJob.status,
      active: [...(cronJob.status?.active ?? []), jobReference(created)],
      lastScheduleTime: metaTime(scheduledMs),
    };
    updateStatus = true;
    return done({ requeueAfterMs: requeue() });
  }
}

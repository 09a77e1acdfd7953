import type { CronJob } from '@svc/api';

/**
 * Which scheduled time a CronJob is due for, as Kubernetes' cronjob controller counts it
 * (`mostRecentScheduleTime`, `nextScheduleTime`, `nextScheduleTimeDuration`): pure functions of the
 * CronJob, the time now and the schedule's "next time after".
 */

/** The schedule as the controller uses it: the first time it fires strictly after an instant (ms), or undefined if never. */
export type NextTime = (afterMs: number) => number | undefined;

/** More missed runs than this is a clock problem, not a backlog: an event says so, and only the latest runs. */
export const MANY_MISSED_SCHEDULES = 100;

/** Slack after a scheduled time before the CronJob is synced, for clocks that differ a little (Kubernetes' nextScheduleDelta). */
export const NEXT_SCHEDULE_DELTA_MS = 100;

export type MissedSchedules = 'none' | 'few' | 'many';

export interface MostRecentSchedule {
  /** The last scheduled time, or the CronJob's creation (or the starting deadline, when later and asked for). */
  earliestMs: number;
  /** The latest scheduled time in (earliest, now], if any. */
  mostRecentMs?: number;
  missed: MissedSchedules;
  /** A schedule that parses but never fires in a way that can be counted (a 31 February). */
  error?: string;
}

function timeMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The latest time the schedule fired since the CronJob last started a Job (or was created), and how
 * many runs that leaves missed, counted as Kubernetes approximates it: from the gap between the next
 * two runs, not by walking them all, so that a clock off by years costs nothing.
 */
export function mostRecentScheduleTime(cronJob: CronJob, nowMs: number, next: NextTime, withStartingDeadline: boolean): MostRecentSchedule {
  let earliestMs = timeMs(cronJob.status?.lastScheduleTime) ?? timeMs(cronJob.metadata?.creationTimestamp) ?? nowMs;
  const deadline = cronJob.spec.startingDeadlineSeconds;
  if (withStartingDeadline && deadline !== undefined) {
    // Nothing before the starting deadline would be started anyway.
    const schedulingDeadline = nowMs - deadline * 1000;
    if (schedulingDeadline > earliestMs) earliestMs = schedulingDeadline;
  }
  const t1 = next(earliestMs);
  const t2 = t1 === undefined ? undefined : next(t1);
  if (t1 !== undefined && nowMs < t1) return { earliestMs, missed: 'none' };
  if (t1 !== undefined && t2 !== undefined && nowMs < t2) return { earliestMs, mostRecentMs: t1, missed: 'none' };

  const between = t1 === undefined || t2 === undefined ? 0 : Math.round((t2 - t1) / 1000);
  if (t1 === undefined || between < 1) return { earliestMs, missed: 'none', error: 'time difference between two schedules is less than 1 second' };
  const elapsed = Math.trunc((nowMs - t1) / 1000);
  const missedCount = Math.floor(elapsed / between) + 1;
  // One gap further back than the estimate, so that irregular schedules (30 6-16/4 * * 1-5) and
  // @every land on a real run; then the schedule itself walks to the latest one.
  let mostRecentMs: number | undefined;
  for (let t = next(t1 + (missedCount - 2) * between * 1000); t !== undefined && t <= nowMs; t = next(t)) mostRecentMs = t;
  const missed: MissedSchedules = missedCount > MANY_MISSED_SCHEDULES ? 'many' : missedCount > 0 ? 'few' : 'none';
  return mostRecentMs === undefined ? { earliestMs, missed } : { earliestMs, mostRecentMs, missed };
}

/** The scheduled time a Job is due for now (starting deadline applied), if any: Kubernetes' nextScheduleTime. */
export function dueScheduleTime(cronJob: CronJob, nowMs: number, next: NextTime): { scheduledMs?: number; missed: MissedSchedules; error?: string } {
  const recent = mostRecentScheduleTime(cronJob, nowMs, next, true);
  if (recent.mostRecentMs === undefined || recent.mostRecentMs > nowMs)
    return { missed: recent.missed, ...(recent.error !== undefined && { error: recent.error }) };
  return { scheduledMs: recent.mostRecentMs, missed: recent.missed };
}

/**
 * How long until the CronJob should be synced again (Kubernetes' nextScheduleTimeDuration): the next
 * run after the latest one due, plus {@link NEXT_SCHEDULE_DELTA_MS}; undefined when the schedule never fires again.
 */
export function nextSyncDelayMs(cronJob: CronJob, nowMs: number, next: NextTime): number | undefined {
  const recent = mostRecentScheduleTime(cronJob, nowMs, next, false);
  let from: number;
  if (recent.error !== undefined) from = nowMs;
  else if (recent.mostRecentMs !== undefined) from = recent.mostRecentMs;
  else from = recent.missed === 'none' ? recent.earliestMs : nowMs;
  const nextMs = next(from);
  return nextMs === undefined ? undefined : nextMs + NEXT_SCHEDULE_DELTA_MS - nowMs;
}

import { nextCronTime, parseCronSchedule, type CronJob } from '@svc/api';
import { dueScheduleTime, mostRecentScheduleTime, nextSyncDelayMs, NEXT_SCHEDULE_DELTA_MS, type NextTime } from './schedule-times';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function schedule(text: string, zone = 'UTC'): NextTime {
  const parsed = parseCronSchedule(text);
  let calls = 0;
  const next: NextTime & { calls?: () => number } = (after) => {
    calls++;
    return nextCronTime(parsed, after, zone);
  };
  next.calls = () => calls;
  return next;
}

function cronJob(options: { created?: string; lastSchedule?: string; deadline?: number } = {}): CronJob {
  return {
    metadata: { name: 'report', namespace: 'default', creationTimestamp: options.created ?? '2026-03-04T10:00:00Z' },
    spec: {
      schedule: '',
      ...(options.deadline !== undefined && { startingDeadlineSeconds: options.deadline }),
      jobTemplate: { spec: { template: { spec: { containers: [] } } } },
    },
    ...(options.lastSchedule !== undefined && { status: { lastScheduleTime: options.lastSchedule } }),
  };
}

describe('which scheduled time a CronJob is due for (a fake clock)', () => {
  const everyMinute = schedule('*/1 * * * *');

  it('is none before the first run after its creation, and that run once its time comes', () => {
    const cj = cronJob({ created: '2026-03-04T10:00:20Z' });
    expect(dueScheduleTime(cj, at('2026-03-04T10:00:59Z'), everyMinute)).toEqual({ missed: 'none' });
    expect(iso(dueScheduleTime(cj, at('2026-03-04T10:01:00.100Z'), everyMinute).scheduledMs)).toBe('2026-03-04T10:01:00.000Z');
  });

  it('counts from the last scheduled time, not the creation', () => {
    const cj = cronJob({ lastSchedule: '2026-03-04T10:05:00Z' });
    expect(dueScheduleTime(cj, at('2026-03-04T10:05:30Z'), everyMinute)).toEqual({ missed: 'none' });
    expect(dueScheduleTime(cj, at('2026-03-04T10:06:10Z'), everyMinute)).toEqual({ scheduledMs: at('2026-03-04T10:06:00Z'), missed: 'none' });
  });

  it('gives only the latest of a few missed runs', () => {
    const cj = cronJob({ lastSchedule: '2026-03-04T10:00:00Z' });
    const due = dueScheduleTime(cj, at('2026-03-04T10:07:30Z'), everyMinute);
    expect(due).toEqual({ scheduledMs: at('2026-03-04T10:07:00Z'), missed: 'few' });
  });

  it('calls more than 100 missed runs many, still gives the latest, and never walks them all', () => {
    const next = schedule('*/1 * * * *') as NextTime & { calls: () => number };
    // Ten years of minutes: a clock gone wrong.
    const cj = cronJob({ lastSchedule: '2016-03-04T10:00:00Z' });
    const due = dueScheduleTime(cj, at('2026-03-04T10:07:30Z'), next);
    expect(due).toEqual({ scheduledMs: at('2026-03-04T10:07:00Z'), missed: 'many' });
    expect(next.calls()).toBeLessThan(10);
    // 100 missed is few; 101 is many.
    expect(dueScheduleTime(cronJob({ lastSchedule: '2026-03-04T10:00:00Z' }), at('2026-03-04T11:40:30Z'), everyMinute).missed).toBe('few');
    expect(dueScheduleTime(cronJob({ lastSchedule: '2026-03-04T10:00:00Z' }), at('2026-03-04T11:41:30Z'), everyMinute).missed).toBe('many');
  });

  it('lands on a real run of an irregular schedule, and misses one past a weekend as Kubernetes does', () => {
    // 6:30, 10:30, 14:30 on weekdays; 2026-03-02 is a Monday.
    const irregular = schedule('30 6-16/4 * * 1-5');
    const cj = cronJob({ lastSchedule: '2026-03-02T06:30:00Z' });
    expect(dueScheduleTime(cj, at('2026-03-03T12:00:00Z'), irregular)).toEqual({ scheduledMs: at('2026-03-03T10:30:00Z'), missed: 'few' });
    // Saturday noon: the estimate from the 4-hour gap overshoots Friday's 14:30, so no run is due (the next one, Monday's, still is).
    expect(dueScheduleTime(cj, at('2026-03-07T12:00:00Z'), irregular)).toEqual({ missed: 'few' });
  });

  it('skips runs older than the starting deadline', () => {
    // Last run at 10:00, now 10:07:30, deadline 20 s: 10:07 is 30 s late, so nothing is due.
    expect(dueScheduleTime(cronJob({ lastSchedule: '2026-03-04T10:00:00Z', deadline: 20 }), at('2026-03-04T10:07:30Z'), everyMinute)).toEqual({
      missed: 'none',
    });
    // 10 s late is within it.
    expect(dueScheduleTime(cronJob({ lastSchedule: '2026-03-04T10:00:00Z', deadline: 20 }), at('2026-03-04T10:07:10Z'), everyMinute).scheduledMs).toBe(
      at('2026-03-04T10:07:00Z'),
    );
    // A deadline keeps a clock gone wrong from counting as many missed.
    expect(dueScheduleTime(cronJob({ lastSchedule: '2016-03-04T10:00:00Z', deadline: 200 }), at('2026-03-04T10:07:10Z'), everyMinute).missed).toBe('few');
  });

  it('reports a schedule that never fires twice as an error', () => {
    expect(mostRecentScheduleTime(cronJob(), at('2026-03-04T10:07:10Z'), schedule('59 23 31 2 *'), true).error).toBe(
      'time difference between two schedules is less than 1 second',
    );
  });

  it('syncs again just after the next run, not sooner', () => {
    const hourly = schedule('@hourly');
    const cj = cronJob({ lastSchedule: '2026-03-04T10:00:00Z' });
    expect(nextSyncDelayMs(cj, at('2026-03-04T10:20:00Z'), hourly)).toBe(40 * 60_000 + NEXT_SCHEDULE_DELTA_MS);
    // Runs missed since the last one: after the next run from now.
    expect(nextSyncDelayMs(cj, at('2026-03-04T13:20:00Z'), hourly)).toBe(40 * 60_000 + NEXT_SCHEDULE_DELTA_MS);
    expect(nextSyncDelayMs(cronJob({ created: '2026-03-04T10:00:20Z' }), at('2026-03-04T10:00:30Z'), everyMinute)).toBe(30_000 + NEXT_SCHEDULE_DELTA_MS);
    // A schedule that never fires asks for no sync.
    expect(nextSyncDelayMs(cj, at('2026-03-04T10:20:00Z'), schedule('0 0 30 2 *'))).toBeUndefined();
  });
});

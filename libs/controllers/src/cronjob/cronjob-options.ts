import { localTimeZone } from '@svc/api';

/** What the cronjob controller reads the time from, and the zone of schedules that name none. */
export class CronJobOptions {
  constructor(
    /** The time now, in ms since the epoch (a fake clock in tests). */
    readonly now: () => number = Date.now,
    /** Where a CronJob names no time zone, its schedule is read in the controller manager's own (as Kubernetes does). */
    readonly defaultTimeZone: string = localTimeZone(),
  ) {}
}

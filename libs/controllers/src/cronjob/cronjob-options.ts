import { localTimeZone } from '@svc/api';
import { Histogram, type Registry } from 'prom-client';

const skewByRegistry = new WeakMap<Registry, Histogram>();

/**
 * Kubernetes' stable `cronjob_controller_job_creation_skew_duration_seconds`: how late after its
 * scheduled time each Job was created. One per registry.
 */
export function jobCreationSkew(registry: Registry): Histogram {
  let histogram = skewByRegistry.get(registry);
  if (!histogram) {
    histogram = new Histogram({
      name: 'cronjob_controller_job_creation_skew_duration_seconds',
      help: 'Time between when a cronjob is scheduled to be run, and when the corresponding job is created',
      // Kubernetes' ExponentialBuckets(1, 2, 10).
      buckets: Array.from({ length: 10 }, (_, i) => 2 ** i),
      registers: [registry],
    });
    skewByRegistry.set(registry, histogram);
  }
  return histogram;
}

/** What the cronjob controller reads the time from, and the zone of schedules that name none. */
export class CronJobOptions {
  constructor(
    /** The time now, in ms since the epoch (a fake clock in tests). */
    readonly now: () => number = Date.now,
    /** Where a CronJob names no time zone, its schedule is read in the controller manager's own (as Kubernetes does). */
    readonly defaultTimeZone: string = localTimeZone(),
    /** Where each Job's lateness after its scheduled time is observed; none when not given. */
    readonly creationSkew?: Pick<Histogram, 'observe'>,
  ) {}
}

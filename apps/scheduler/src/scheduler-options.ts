import type { SchedulerOptions } from '@svc/options';

/** Injection token of the parsed flags. */
export const SCHEDULER_OPTIONS = Symbol.for('svc.scheduler.options');

export type { SchedulerOptions };

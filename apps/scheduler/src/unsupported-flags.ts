import { refusedFlagProblem, SCHEDULER_FLAGS, SCHEDULER_REFUSED_FLAGS, type SchedulerOptions } from '@svc/options';

/** The first flag given a value this scheduler would ignore, as the one line to print; undefined when none. */
export function unsupportedFlagProblem(options: SchedulerOptions): string | undefined {
  return refusedFlagProblem(SCHEDULER_FLAGS, SCHEDULER_REFUSED_FLAGS, options);
}

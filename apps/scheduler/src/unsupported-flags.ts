import { refusedFlagProblem, SCHEDULER_FLAGS, UNSUPPORTED_SHARED_FLAGS, type RefusedFlag, type SchedulerOptions } from '@svc/options';

/** Flags of the table (spec 2) whose effect this scheduler lacks: a value other than the default is refused. */
const UNSUPPORTED: readonly RefusedFlag[] = [...UNSUPPORTED_SHARED_FLAGS];

/** The first flag given a value this scheduler would ignore, as the one line to print; undefined when none. */
export function unsupportedFlagProblem(options: SchedulerOptions): string | undefined {
  return refusedFlagProblem(SCHEDULER_FLAGS, UNSUPPORTED, options);
}

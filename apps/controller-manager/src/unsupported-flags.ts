import { CONTROLLER_MANAGER_FLAGS, CONTROLLER_MANAGER_REFUSED_FLAGS, refusedFlagProblem, type ControllerManagerOptions } from '@svc/options';

/** The first flag given a value this controller manager would ignore, as the one line to print; undefined when none. */
export function unsupportedFlagProblem(options: ControllerManagerOptions): string | undefined {
  return refusedFlagProblem(CONTROLLER_MANAGER_FLAGS, CONTROLLER_MANAGER_REFUSED_FLAGS, options);
}

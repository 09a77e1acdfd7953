import type { ControllerDescriptor } from '../controller-descriptor';
import { CronJobOptions, jobCreationSkew } from './cronjob-options';
import { CRONJOB_CONTROLLER_NAME, CronJobReconciler } from './cronjob-reconciler';

export { CronJobOptions } from './cronjob-options';

/** Makes a Job from each CronJob's template at the times its schedule fires, and keeps its history. */
export const cronJobController: ControllerDescriptor = {
  name: 'cronjob',
  reconcilers: [CronJobReconciler],
  options: (_flags, manager) => [new CronJobOptions(Date.now, undefined, jobCreationSkew(manager.registry))],
  concurrency: (flags) => ({ [CRONJOB_CONTROLLER_NAME]: flags.concurrentCronJobSyncs }),
};

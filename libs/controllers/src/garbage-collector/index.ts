import type { ControllerDescriptor } from '../controller-descriptor';
import { GarbageCollector, GarbageCollectorOptions } from './garbage-collector';

export { GarbageCollector, GarbageCollectorOptions, monitorName } from './garbage-collector';

/**
 * Deletes dependents whose owners are gone, and finishes Orphan and Foreground deletions, as
 * Kubernetes' garbage collector does (see GarbageCollector).
 */
export const garbageCollectorController: ControllerDescriptor = {
  name: 'garbagecollector',
  runnables: [GarbageCollector],
  options: (flags) => [GarbageCollectorOptions.fromFlags(flags)],
  concurrency: (flags) => ({ garbagecollector: flags.concurrentGcSyncs }),
  enabled: (flags) => flags.enableGarbageCollector,
};

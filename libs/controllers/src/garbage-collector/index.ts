import type { BuiltInController } from '../built-in-controller';
import { GarbageCollector } from './garbage-collector';

export { GarbageCollector, monitorName } from './garbage-collector';

/**
 * Deletes dependents whose owners are gone, and finishes Orphan and Foreground deletions, as
 * Kubernetes' garbage collector does (see GarbageCollector).
 */
export const garbageCollectorController: BuiltInController = {
  name: 'garbagecollector',
  providers: [GarbageCollector],
  concurrency: (o) => ({ garbagecollector: o.concurrentGcSyncs }),
  enabled: (o) => o.enableGarbageCollector,
};

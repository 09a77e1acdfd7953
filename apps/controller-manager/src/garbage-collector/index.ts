import type { BuiltInController } from '../built-in-controller';

/** Deletes dependents whose owners are gone, per propagation policy (not built yet). */
export const garbageCollectorController: BuiltInController = {
  name: 'garbagecollector',
  providers: [],
  concurrency: (o) => ({ garbagecollector: o.concurrentGcSyncs }),
  enabled: (o) => o.enableGarbageCollector,
};

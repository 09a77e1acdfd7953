import type { BuiltInController } from '../built-in-controller';

/** Empties terminating namespaces, then lets them go (not built yet). */
export const namespaceController: BuiltInController = {
  name: 'namespace',
  providers: [],
  concurrency: (o) => ({ namespace: o.concurrentNamespaceSyncs }),
};

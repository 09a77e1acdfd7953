import type { BuiltInController } from '../built-in-controller';
import { NamespaceReconciler } from './namespace-reconciler';

/** Empties terminating namespaces, then lets them go. */
export const namespaceController: BuiltInController = {
  name: 'namespace',
  providers: [NamespaceReconciler],
  concurrency: (o) => ({ namespace: o.concurrentNamespaceSyncs }),
};

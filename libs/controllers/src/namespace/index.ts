import type { ControllerDescriptor } from '../controller-descriptor';
import { NamespaceOptions } from './namespace-options';
import { NamespaceReconciler } from './namespace-reconciler';

/** Empties terminating namespaces, then lets them go. */
export const namespaceController: ControllerDescriptor = {
  name: 'namespace',
  reconcilers: [NamespaceReconciler],
  options: (flags) => [NamespaceOptions.fromFlags(flags)],
  concurrency: (flags) => ({ namespace: flags.concurrentNamespaceSyncs }),
};

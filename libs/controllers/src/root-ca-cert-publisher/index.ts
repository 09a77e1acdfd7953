import type { ControllerDescriptor } from '../controller-descriptor';
import { loadRootCaBundle, RootCaBundle } from './root-ca-bundle';
import { RootCaCertPublisherReconciler } from './root-ca-cert-publisher-reconciler';

export { RootCaCertPublisherReconciler, ROOT_CA_CONFIG_MAP, ROOT_CA_KEY } from './root-ca-cert-publisher-reconciler';
export { RootCaBundle, loadRootCaBundle } from './root-ca-bundle';

/** `kube-root-ca.crt` (key `ca.crt`, from `--root-ca-file`) in every namespace, for projected token volumes. */
export const rootCaCertPublisherController: ControllerDescriptor = {
  name: 'root-ca-cert-publisher',
  reconcilers: [RootCaCertPublisherReconciler],
  // The manager's own connection, not the controller's: both trust the same CA.
  options: async (flags, manager) => [new RootCaBundle(await loadRootCaBundle(flags.rootCaFile, manager.client.rest.config.ca))],
  concurrency: () => ({ 'root-ca-cert-publisher': 1 }),
};

import { Manager } from '@svc/runtime';
import type { BuiltInController } from '../built-in-controller';
import { CONTROLLER_MANAGER_OPTIONS, type ControllerManagerOptions } from '../controller-manager-options';
import { loadRootCaBundle, ROOT_CA_BUNDLE } from './root-ca-bundle';
import { RootCaCertPublisherReconciler } from './root-ca-cert-publisher-reconciler';

export { RootCaCertPublisherReconciler, ROOT_CA_CONFIG_MAP, ROOT_CA_KEY } from './root-ca-cert-publisher-reconciler';
export { ROOT_CA_BUNDLE, loadRootCaBundle } from './root-ca-bundle';

/** `kube-root-ca.crt` (key `ca.crt`, from `--root-ca-file`) in every namespace, for projected token volumes. */
export const rootCaCertPublisherController: BuiltInController = {
  name: 'root-ca-cert-publisher',
  providers: [
    RootCaCertPublisherReconciler,
    {
      provide: ROOT_CA_BUNDLE,
      // The manager's own connection, not the controller's: both trust the same CA.
      useFactory: (options: ControllerManagerOptions, manager: Manager) => loadRootCaBundle(options.rootCaFile, manager.client.rest.config.ca),
      inject: [CONTROLLER_MANAGER_OPTIONS, Manager],
    },
  ],
  concurrency: () => ({ 'root-ca-cert-publisher': 1 }),
};

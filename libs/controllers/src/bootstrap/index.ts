import type { ControllerDescriptor } from '../controller-descriptor';
import { BOOTSTRAP_SIGNER_RECONCILER_NAME, BootstrapSignerReconciler } from './bootstrap-signer-reconciler';
import { TOKEN_CLEANER_RECONCILER_NAME, TokenCleanerReconciler } from './token-cleaner-reconciler';

export { BootstrapSignerReconciler, detachedSignature, PUBLIC_NAMESPACE } from './bootstrap-signer-reconciler';
export { TokenCleanerReconciler } from './token-cleaner-reconciler';

/** Signs the public `cluster-info` ConfigMap with each signing bootstrap token (off unless named, as in Kubernetes). */
export const bootstrapSignerController: ControllerDescriptor = {
  name: 'bootstrapsigner',
  reconcilers: [BootstrapSignerReconciler],
  concurrency: () => ({ [BOOTSTRAP_SIGNER_RECONCILER_NAME]: 1 }),
};

/** Deletes bootstrap token Secrets once they expire (off unless named, as in Kubernetes). */
export const tokenCleanerController: ControllerDescriptor = {
  name: 'tokencleaner',
  reconcilers: [TokenCleanerReconciler],
  concurrency: () => ({ [TOKEN_CLEANER_RECONCILER_NAME]: 1 }),
};

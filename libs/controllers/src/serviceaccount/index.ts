import type { BuiltInController } from '../built-in-controller';
import { ServiceAccountReconciler } from './service-account-reconciler';

export { ServiceAccountReconciler, NAMESPACE_SERVICE_ACCOUNTS, isActiveNamespace } from './service-account-reconciler';

/** A `default` ServiceAccount in every active namespace. */
export const serviceAccountController: BuiltInController = {
  name: 'serviceaccount',
  providers: [ServiceAccountReconciler],
  // One worker, as Kubernetes runs it.
  concurrency: () => ({ serviceaccount: 1 }),
};

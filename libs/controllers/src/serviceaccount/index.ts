import type { ControllerDescriptor } from '../controller-descriptor';
import { ServiceAccountReconciler } from './service-account-reconciler';

export { ServiceAccountReconciler, NAMESPACE_SERVICE_ACCOUNTS, isActiveNamespace } from './service-account-reconciler';

/** A `default` ServiceAccount in every active namespace. */
export const serviceAccountController: ControllerDescriptor = {
  name: 'serviceaccount',
  reconcilers: [ServiceAccountReconciler],
  // One worker, as Kubernetes runs it.
  concurrency: () => ({ serviceaccount: 1 }),
};

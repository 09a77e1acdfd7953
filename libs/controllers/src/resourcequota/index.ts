import type { ControllerDescriptor } from '../controller-descriptor';
import { RESOURCE_QUOTA_RECONCILER_NAME, ResourceQuotaReconciler } from './resource-quota-reconciler';
import { ResourceQuotaOptions } from './resource-quota-options';

export { ResourceQuotaReconciler } from './resource-quota-reconciler';
export { ResourceQuotaOptions } from './resource-quota-options';
export { calculateQuotaUsage } from './quota-usage';

/** Keeps ResourceQuotas' status: their hard limits, and what their namespaces use now. */
export const resourceQuotaController: ControllerDescriptor = {
  name: 'resourcequota',
  reconcilers: [ResourceQuotaReconciler],
  options: (flags) => [ResourceQuotaOptions.fromFlags(flags)],
  concurrency: (flags) => ({ [RESOURCE_QUOTA_RECONCILER_NAME]: flags.concurrentResourceQuotaSyncs }),
};

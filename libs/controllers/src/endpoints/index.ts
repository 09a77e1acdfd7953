import type { ControllerDescriptor } from '../controller-descriptor';
import { EndpointsOptions } from './endpoints-options';
import { EndpointsReconciler } from './endpoints-reconciler';

/** Keeps each selecting Service's Endpoints at its pods' addresses. */
export const endpointsController: ControllerDescriptor = {
  name: 'endpoints',
  reconcilers: [EndpointsReconciler],
  options: (flags) => [EndpointsOptions.fromFlags(flags)],
  concurrency: (flags) => ({ endpoints: flags.concurrentEndpointSyncs }),
};

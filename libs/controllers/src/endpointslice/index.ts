import type { ControllerDescriptor } from '../controller-descriptor';
import { EndpointSliceOptions } from './endpoint-slice-options';
import { EndpointSliceReconciler } from './endpoint-slice-reconciler';

/** Keeps each Service's EndpointSlices at the addresses of its Endpoints. */
export const endpointSliceController: ControllerDescriptor = {
  name: 'endpointslice',
  reconcilers: [EndpointSliceReconciler],
  options: (flags) => [EndpointSliceOptions.fromFlags(flags)],
  concurrency: (flags) => ({ endpointslice: flags.concurrentServiceEndpointSyncs }),
};

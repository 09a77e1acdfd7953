import type { BuiltInController } from '../built-in-controller';
import { EndpointSliceReconciler } from './endpoint-slice-reconciler';

/** Keeps each Service's EndpointSlices at the addresses of its Endpoints. */
export const endpointSliceController: BuiltInController = {
  name: 'endpointslice',
  providers: [EndpointSliceReconciler],
  concurrency: (o) => ({ endpointslice: o.concurrentServiceEndpointSyncs }),
};

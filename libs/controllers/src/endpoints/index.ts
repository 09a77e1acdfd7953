import type { BuiltInController } from '../built-in-controller';
import { EndpointsReconciler } from './endpoints-reconciler';

/** Keeps each selecting Service's Endpoints at its pods' addresses. */
export const endpointsController: BuiltInController = {
  name: 'endpoints',
  providers: [EndpointsReconciler],
  concurrency: (o) => ({ endpoints: o.concurrentEndpointSyncs }),
};

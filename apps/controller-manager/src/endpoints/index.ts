import type { BuiltInController } from '../built-in-controller';
import { endpointsReconcilerProvider } from './endpoints-reconciler';

/** Keeps each selecting Service's Endpoints at its pods' addresses. */
export const endpointsController: BuiltInController = {
  name: 'endpoints',
  providers: [endpointsReconcilerProvider],
  concurrency: (o) => ({ endpoints: o.concurrentEndpointSyncs }),
};

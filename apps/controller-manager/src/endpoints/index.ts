import type { BuiltInController } from '../built-in-controller';

/** Keeps each selecting Service's Endpoints at its ready pods (not built yet). */
export const endpointsController: BuiltInController = {
  name: 'endpoints',
  providers: [],
  concurrency: (o) => ({ endpoints: o.concurrentEndpointSyncs }),
};

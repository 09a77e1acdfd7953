import type { BuiltInController } from '../built-in-controller';

/** Rolls Deployments out through their ReplicaSets (not built yet). */
export const deploymentController: BuiltInController = {
  name: 'deployment',
  providers: [],
  concurrency: (o) => ({ deployment: o.concurrentDeploymentSyncs }),
};

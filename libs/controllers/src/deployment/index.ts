import type { BuiltInController } from '../built-in-controller';
import { DeploymentReconciler } from './deployment-reconciler';

/** Rolls Deployments out through their ReplicaSets. */
export const deploymentController: BuiltInController = {
  name: 'deployment',
  providers: [DeploymentReconciler],
  concurrency: (o) => ({ deployment: o.concurrentDeploymentSyncs }),
};

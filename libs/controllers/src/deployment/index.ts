import type { ControllerDescriptor } from '../controller-descriptor';
import { DeploymentReconciler } from './deployment-reconciler';

/** Rolls Deployments out through their ReplicaSets. */
export const deploymentController: ControllerDescriptor = {
  name: 'deployment',
  reconcilers: [DeploymentReconciler],
  concurrency: (flags) => ({ deployment: flags.concurrentDeploymentSyncs }),
};

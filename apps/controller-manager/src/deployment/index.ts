import { Client } from '@svc/client';
import { Manager } from '@svc/runtime';
import type { BuiltInController } from '../built-in-controller';
import { createDeploymentReconciler, DeploymentReconciler } from './deployment-reconciler';

/** Rolls Deployments out through their ReplicaSets. */
export const deploymentController: BuiltInController = {
  name: 'deployment',
  providers: [{ provide: DeploymentReconciler, useFactory: createDeploymentReconciler, inject: [Manager, Client] }],
  concurrency: (o) => ({ deployment: o.concurrentDeploymentSyncs }),
};

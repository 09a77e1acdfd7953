import { enabledControllers, type ControllerManagerOptions } from '@svc/options';
import type { ControllerDescriptor } from './controller-descriptor';
import { cronJobController } from './cronjob';
import { daemonSetController } from './daemonset';
import { deploymentController } from './deployment';
import { disruptionController } from './disruption';
import { endpointsController } from './endpoints';
import { endpointSliceController } from './endpointslice';
import { garbageCollectorController } from './garbage-collector';
import { jobController } from './job';
import { namespaceController } from './namespace';
import { nodeIpamController } from './nodeipam';
import { nodeLifecycleController } from './nodelifecycle';
import { podGcController } from './podgc';
import { replicaSetController } from './replicaset';
import { replicationControllerController } from './replication';
import { rootCaCertPublisherController } from './root-ca-cert-publisher';
import { serviceAccountController } from './serviceaccount';
import { ttlAfterFinishedController } from './ttlafterfinished';
import { statefulSetController } from './statefulset';
import { persistentVolumeBinderController } from './persistentvolume';
import { pvcProtectionController } from './pvcprotection';
import { pvProtectionController } from './pvprotection';
import { ephemeralVolumeController } from './ephemeral';
import { resourceQuotaController } from './resourcequota';
import { csrApprovingController, csrCleanerController, csrSigningController } from './certificates';
import { bootstrapSignerController, tokenCleanerController } from './bootstrap';
import { horizontalPodAutoscalerController } from './podautoscaler';

/** Every controller this process implements, in the order they are added to the manager. */
export const BUILT_IN_CONTROLLERS: readonly ControllerDescriptor[] = [
  replicaSetController,
  deploymentController,
  namespaceController,
  garbageCollectorController,
  endpointsController,
  replicationControllerController,
  endpointSliceController,
  nodeIpamController,
  nodeLifecycleController,
  podGcController,
  serviceAccountController,
  rootCaCertPublisherController,
  disruptionController,
  jobController,
  ttlAfterFinishedController,
  cronJobController,
  statefulSetController,
  daemonSetController,
  persistentVolumeBinderController,
  pvcProtectionController,
  pvProtectionController,
  ephemeralVolumeController,
  resourceQuotaController,
  csrSigningController,
  csrApprovingController,
  csrCleanerController,
  bootstrapSignerController,
  tokenCleanerController,
  horizontalPodAutoscalerController,
];

/** The built-in controllers `--controllers` (and their own switches) turn on. */
export function selectControllers(options: ControllerManagerOptions): ControllerDescriptor[] {
  const wanted = new Set<string>(enabledControllers(options));
  return BUILT_IN_CONTROLLERS.filter((c) => wanted.has(c.name) && (c.enabled?.(options) ?? true));
}

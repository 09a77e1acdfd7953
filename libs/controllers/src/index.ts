export type { ControllerDescriptor } from './controller-descriptor';
export { BUILT_IN_CONTROLLERS, selectControllers } from './built-in-controllers';
export { createControllerManager } from './controller-manager';
export { cronJobController, CronJobOptions } from './cronjob';
export { daemonSetController } from './daemonset';
export { deploymentController } from './deployment';
export { disruptionController } from './disruption';
export { endpointsController } from './endpoints';
export { endpointSliceController } from './endpointslice';
export { garbageCollectorController } from './garbage-collector';
export { jobController } from './job';
export { namespaceController } from './namespace';
export { nodeIpamController } from './nodeipam';
export { nodeLifecycleController } from './nodelifecycle';
export { podGcController } from './podgc';
export { replicaSetController } from './replicaset';
export { replicationControllerController } from './replication';
export { rootCaCertPublisherController } from './root-ca-cert-publisher';
export { serviceAccountController } from './serviceaccount';
export { ttlAfterFinishedController } from './ttlafterfinished';
export { statefulSetController } from './statefulset';
export { persistentVolumeBinderController, PersistentVolumeBinderOptions } from './persistentvolume';
export { pvcProtectionController } from './pvcprotection';
export { pvProtectionController } from './pvprotection';
export { ephemeralVolumeController } from './ephemeral';
export {
  csrSigningController,
  csrApprovingController,
  csrCleanerController,
  signingAuthoritiesFromFlags,
  SigningAuthority,
  csrDeletionDue,
  builtInSignerCheck,
} from './certificates';
export { bootstrapSignerController, tokenCleanerController, detachedSignature } from './bootstrap';
export {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  NOT_SUPPORTED_PROVISIONER,
  PV_PROTECTION_FINALIZER,
  PVC_PROTECTION_FINALIZER,
  checkAccessModes,
  claimClass,
  claimReference,
  findMatchingVolume,
  isDelayBindingClass,
  isVolumeBoundToClaim,
  refersToClaim,
  volumeNodeAffinityMatches,
} from './persistentvolume';
export { ephemeralClaimName, podClaimNames } from './common/pod-claim-index';
export { resourceQuotaController } from './resourcequota';
export {
  horizontalPodAutoscalerController,
  HorizontalPodAutoscalerOptions,
  MetricsApiPodMetricsSource,
  PodMetricsSource,
  type ContainerMetrics,
  type PodMetrics,
} from './podautoscaler';

import {
  mutatingWebhookConfigurationDefinition,
  validatingAdmissionPolicyBindingDefinition,
  validatingAdmissionPolicyDefinition,
  validatingWebhookConfigurationDefinition,
} from './definitions/admission-registration-definitions';
import { customResourceDefinitionDefinition } from './definitions/custom-resource-definition-definition';
import { certificateSigningRequestDefinition } from './definitions/certificate-signing-request-definition';
import { configMapDefinition } from './definitions/config-map-definition';
import { controllerRevisionDefinition } from './definitions/controller-revision-definition';
import { cronJobDefinition } from './definitions/cron-job-definition';
import { daemonSetDefinition } from './definitions/daemon-set-definition';
import { deploymentDefinition } from './definitions/deployment-definition';
import { endpointSliceDefinition } from './definitions/endpoint-slice-definition';
import { endpointsDefinition } from './definitions/endpoints-definition';
import { eventDefinition } from './definitions/event-definition';
import { eventsEventDefinition } from './definitions/events-event-definition';
import { jobDefinition } from './definitions/job-definition';
import { leaseDefinition } from './definitions/lease-definition';
import { namespaceDefinition } from './definitions/namespace-definition';
import { nodeDefinition } from './definitions/node-definition';
import { persistentVolumeClaimDefinition } from './definitions/persistent-volume-claim-definition';
import { persistentVolumeDefinition } from './definitions/persistent-volume-definition';
import { podDefinition } from './definitions/pod-definition';
import { podDisruptionBudgetDefinition } from './definitions/pod-disruption-budget-definition';
import { podTemplateDefinition } from './definitions/pod-template-definition';
import { priorityClassDefinition } from './definitions/priority-class-definition';
import { runtimeClassDefinition } from './definitions/runtime-class-definition';
import { replicaSetDefinition } from './definitions/replica-set-definition';
import { secretDefinition } from './definitions/secret-definition';
import { serviceAccountDefinition } from './definitions/service-account-definition';
import { serviceDefinition } from './definitions/service-definition';
import { statefulSetDefinition } from './definitions/stateful-set-definition';
import {
  csiDriverDefinition,
  csiNodeDefinition,
  csiStorageCapacityDefinition,
  storageClassDefinition,
  volumeAttachmentDefinition,
} from './definitions/storage-definitions';
import { ingressClassDefinition, ingressDefinition, networkPolicyDefinition } from './definitions/networking-definitions';
import { clusterRoleBindingDefinition, clusterRoleDefinition, roleBindingDefinition, roleDefinition } from './definitions/rbac-definitions';
import { replicationControllerDefinition } from './definitions/replication-controller-definition';
import { limitRangeDefinition } from './definitions/limit-range-definition';
import { resourceQuotaDefinition } from './definitions/resource-quota-definition';
import { apiServiceDefinition } from './definitions/api-service-definition';
import { flowSchemaDefinition, priorityLevelConfigurationDefinition } from './definitions/flowcontrol-definitions';
import { horizontalPodAutoscalerDefinition, horizontalPodAutoscalerV1Definition } from './definitions/horizontal-pod-autoscaler-definition';
import type { KindDefinition } from './kind-definition';
import { Scheme } from './scheme';

export const BUILTIN_KINDS: readonly KindDefinition[] = [
  namespaceDefinition,
  podDefinition,
  serviceDefinition,
  endpointsDefinition,
  configMapDefinition,
  secretDefinition,
  eventDefinition,
  nodeDefinition,
  serviceAccountDefinition,
  replicationControllerDefinition,
  podTemplateDefinition,
  persistentVolumeDefinition,
  persistentVolumeClaimDefinition,
  replicaSetDefinition,
  deploymentDefinition,
  statefulSetDefinition,
  daemonSetDefinition,
  controllerRevisionDefinition,
  jobDefinition,
  cronJobDefinition,
  priorityClassDefinition,
  podDisruptionBudgetDefinition,
  storageClassDefinition,
  csiDriverDefinition,
  csiNodeDefinition,
  csiStorageCapacityDefinition,
  volumeAttachmentDefinition,
  ingressClassDefinition,
  ingressDefinition,
  networkPolicyDefinition,
  leaseDefinition,
  endpointSliceDefinition,
  customResourceDefinitionDefinition,
  roleDefinition,
  clusterRoleDefinition,
  roleBindingDefinition,
  clusterRoleBindingDefinition,
  validatingWebhookConfigurationDefinition,
  mutatingWebhookConfigurationDefinition,
  validatingAdmissionPolicyDefinition,
  validatingAdmissionPolicyBindingDefinition,
  resourceQuotaDefinition,
  limitRangeDefinition,
  certificateSigningRequestDefinition,
  horizontalPodAutoscalerDefinition,
  horizontalPodAutoscalerV1Definition,
  runtimeClassDefinition,
  eventsEventDefinition,
  apiServiceDefinition,
  flowSchemaDefinition,
  priorityLevelConfigurationDefinition,
];

/** A new Scheme holding every built-in kind; CRD kinds are added to it at run time. */
export function builtinScheme(): Scheme {
  const scheme = new Scheme();
  for (const def of BUILTIN_KINDS) scheme.register(def);
  return scheme;
}

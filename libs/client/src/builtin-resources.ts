import {
  configMapDefinition,
  controllerRevisionDefinition,
  cronJobDefinition,
  daemonSetDefinition,
  jobDefinition,
  podTemplateDefinition,
  priorityClassDefinition,
  statefulSetDefinition,
  persistentVolumeDefinition,
  persistentVolumeClaimDefinition,
  storageClassDefinition,
  csiDriverDefinition,
  csiNodeDefinition,
  csiStorageCapacityDefinition,
  volumeAttachmentDefinition,
  certificateSigningRequestDefinition,
  type CertificateSigningRequest,
  apiServiceDefinition,
  type APIService,
  ingressDefinition,
  ingressClassDefinition,
  networkPolicyDefinition,
  type Ingress,
  type IngressClass,
  type NetworkPolicy,
  runtimeClassDefinition,
  type RuntimeClass,
  eventsEventDefinition,
  type EventsEvent,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
  type CSIDriver,
  type CSINode,
  type CSIStorageCapacity,
  type VolumeAttachment,
  type ControllerRevision,
  type CronJob,
  type DaemonSet,
  type Job,
  type PodTemplate,
  type PriorityClass,
  type StatefulSet,
  customResourceDefinitionDefinition,
  deploymentDefinition,
  endpointsDefinition,
  endpointSliceDefinition,
  eventDefinition,
  leaseDefinition,
  mutatingWebhookConfigurationDefinition,
  namespaceDefinition,
  nodeDefinition,
  podDefinition,
  podDisruptionBudgetDefinition,
  replicaSetDefinition,
  replicationControllerDefinition,
  roleBindingDefinition,
  roleDefinition,
  clusterRoleBindingDefinition,
  clusterRoleDefinition,
  secretDefinition,
  serviceAccountDefinition,
  serviceDefinition,
  validatingAdmissionPolicyBindingDefinition,
  validatingAdmissionPolicyDefinition,
  validatingWebhookConfigurationDefinition,
  type ConfigMap,
  type CustomResourceDefinition,
  type Deployment,
  type Endpoints,
  type EndpointSlice,
  type Event,
  type KindDefinition,
  type ReplicationController,
  type Role,
  type RoleBinding,
  type ClusterRole,
  type ClusterRoleBinding,
  type Lease,
  type MutatingWebhookConfiguration,
  type Namespace,
  type Node,
  type Pod,
  type PodDisruptionBudget,
  type ReplicaSet,
  type Secret,
  type Service,
  type ServiceAccount,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
  type ValidatingWebhookConfiguration,
  limitRangeDefinition,
  flowSchemaDefinition,
  priorityLevelConfigurationDefinition,
  resourceQuotaDefinition,
  type LimitRange,
  type FlowSchema,
  type PriorityLevelConfiguration,
  type ResourceQuota,
  horizontalPodAutoscalerDefinition,
  type HorizontalPodAutoscaler,
} from '@svc/api';
import { resourceInfo, type ResourceInfo } from './resource-info';

/**
 * A resource type paired with the TypeScript type of its objects. The type exists only for the
 * compiler; at run time this is the ResourceInfo.
 */
/**
 * A resource with the type of its objects as the server returns them (T) and of what a creator sends
 * (I): the same for built-in kinds; for a resource type defined in code, fields with a default are
 * optional in I and present in T.
 */
export interface TypedResource<T, I = T> {
  readonly info: ResourceInfo;
  /** Carries T for inference; never set. */
  readonly __object?: T;
  /** Carries I for inference; never set. */
  readonly __input?: I;
}

export function typedResource<T, I = T>(def: KindDefinition | ResourceInfo): TypedResource<T, I> {
  return { info: resourceInfo(def) };
}

/**
 * Every built-in kind of the scheme with its object type, keyed by the camel-cased plural of its
 * resource (`configmaps` -> `configMaps`). A test keeps it equal to `BUILTIN_KINDS`.
 */
/**
 * The type of {@link BUILTIN_RESOURCES}, written out: its declaration names each kind's type (`ConfigMap`)
 * instead of the expanded object type the compiler would emit, which a project compiled with
 * `exactOptionalPropertyTypes` could not match with the same kind's type computed on its side.
 */
export interface BuiltinResources {
  readonly namespaces: TypedResource<Namespace>;
  readonly pods: TypedResource<Pod>;
  readonly services: TypedResource<Service>;
  readonly endpoints: TypedResource<Endpoints>;
  readonly configMaps: TypedResource<ConfigMap>;
  readonly secrets: TypedResource<Secret>;
  readonly events: TypedResource<Event>;
  readonly nodes: TypedResource<Node>;
  readonly serviceAccounts: TypedResource<ServiceAccount>;
  readonly replicaSets: TypedResource<ReplicaSet>;
  readonly replicationControllers: TypedResource<ReplicationController>;
  readonly deployments: TypedResource<Deployment>;
  readonly podTemplates: TypedResource<PodTemplate>;
  readonly statefulSets: TypedResource<StatefulSet>;
  readonly daemonSets: TypedResource<DaemonSet>;
  readonly controllerRevisions: TypedResource<ControllerRevision>;
  readonly jobs: TypedResource<Job>;
  readonly cronJobs: TypedResource<CronJob>;
  readonly priorityClasses: TypedResource<PriorityClass>;
  readonly persistentVolumes: TypedResource<PersistentVolume>;
  readonly persistentVolumeClaims: TypedResource<PersistentVolumeClaim>;
  readonly storageClasses: TypedResource<StorageClass>;
  readonly csiDrivers: TypedResource<CSIDriver>;
  readonly csiNodes: TypedResource<CSINode>;
  readonly csiStorageCapacities: TypedResource<CSIStorageCapacity>;
  readonly volumeAttachments: TypedResource<VolumeAttachment>;
  readonly ingresses: TypedResource<Ingress>;
  readonly ingressClasses: TypedResource<IngressClass>;
  readonly networkPolicies: TypedResource<NetworkPolicy>;
  readonly runtimeClasses: TypedResource<RuntimeClass>;
  /** events.k8s.io/v1 Events: the core/v1 Events under the newer names. */
  readonly eventsEvents: TypedResource<EventsEvent>;
  readonly podDisruptionBudgets: TypedResource<PodDisruptionBudget>;
  readonly leases: TypedResource<Lease>;
  readonly endpointSlices: TypedResource<EndpointSlice>;
  readonly customResourceDefinitions: TypedResource<CustomResourceDefinition>;
  readonly roles: TypedResource<Role>;
  readonly clusterRoles: TypedResource<ClusterRole>;
  readonly roleBindings: TypedResource<RoleBinding>;
  readonly clusterRoleBindings: TypedResource<ClusterRoleBinding>;
  readonly validatingWebhookConfigurations: TypedResource<ValidatingWebhookConfiguration>;
  readonly mutatingWebhookConfigurations: TypedResource<MutatingWebhookConfiguration>;
  readonly validatingAdmissionPolicies: TypedResource<ValidatingAdmissionPolicy>;
  readonly validatingAdmissionPolicyBindings: TypedResource<ValidatingAdmissionPolicyBinding>;
  readonly resourceQuotas: TypedResource<ResourceQuota>;
  readonly limitRanges: TypedResource<LimitRange>;
  readonly certificateSigningRequests: TypedResource<CertificateSigningRequest>;
  readonly apiServices: TypedResource<APIService>;
  readonly flowSchemas: TypedResource<FlowSchema>;
  readonly priorityLevelConfigurations: TypedResource<PriorityLevelConfiguration>;
  readonly horizontalPodAutoscalers: TypedResource<HorizontalPodAutoscaler>;
}

export const BUILTIN_RESOURCES: BuiltinResources = {
  namespaces: typedResource<Namespace>(namespaceDefinition),
  pods: typedResource<Pod>(podDefinition),
  services: typedResource<Service>(serviceDefinition),
  endpoints: typedResource<Endpoints>(endpointsDefinition),
  configMaps: typedResource<ConfigMap>(configMapDefinition),
  secrets: typedResource<Secret>(secretDefinition),
  events: typedResource<Event>(eventDefinition),
  nodes: typedResource<Node>(nodeDefinition),
  serviceAccounts: typedResource<ServiceAccount>(serviceAccountDefinition),
  replicaSets: typedResource<ReplicaSet>(replicaSetDefinition),
  replicationControllers: typedResource<ReplicationController>(replicationControllerDefinition),
  deployments: typedResource<Deployment>(deploymentDefinition),
  podTemplates: typedResource<PodTemplate>(podTemplateDefinition),
  statefulSets: typedResource<StatefulSet>(statefulSetDefinition),
  daemonSets: typedResource<DaemonSet>(daemonSetDefinition),
  controllerRevisions: typedResource<ControllerRevision>(controllerRevisionDefinition),
  jobs: typedResource<Job>(jobDefinition),
  cronJobs: typedResource<CronJob>(cronJobDefinition),
  priorityClasses: typedResource<PriorityClass>(priorityClassDefinition),
  persistentVolumes: typedResource<PersistentVolume>(persistentVolumeDefinition),
  persistentVolumeClaims: typedResource<PersistentVolumeClaim>(persistentVolumeClaimDefinition),
  storageClasses: typedResource<StorageClass>(storageClassDefinition),
  csiDrivers: typedResource<CSIDriver>(csiDriverDefinition),
  csiNodes: typedResource<CSINode>(csiNodeDefinition),
  csiStorageCapacities: typedResource<CSIStorageCapacity>(csiStorageCapacityDefinition),
  volumeAttachments: typedResource<VolumeAttachment>(volumeAttachmentDefinition),
  ingresses: typedResource<Ingress>(ingressDefinition),
  ingressClasses: typedResource<IngressClass>(ingressClassDefinition),
  networkPolicies: typedResource<NetworkPolicy>(networkPolicyDefinition),
  runtimeClasses: typedResource<RuntimeClass>(runtimeClassDefinition),
  eventsEvents: typedResource<EventsEvent>(eventsEventDefinition),
  podDisruptionBudgets: typedResource<PodDisruptionBudget>(podDisruptionBudgetDefinition),
  leases: typedResource<Lease>(leaseDefinition),
  endpointSlices: typedResource<EndpointSlice>(endpointSliceDefinition),
  customResourceDefinitions: typedResource<CustomResourceDefinition>(customResourceDefinitionDefinition),
  roles: typedResource<Role>(roleDefinition),
  clusterRoles: typedResource<ClusterRole>(clusterRoleDefinition),
  roleBindings: typedResource<RoleBinding>(roleBindingDefinition),
  clusterRoleBindings: typedResource<ClusterRoleBinding>(clusterRoleBindingDefinition),
  validatingWebhookConfigurations: typedResource<ValidatingWebhookConfiguration>(validatingWebhookConfigurationDefinition),
  mutatingWebhookConfigurations: typedResource<MutatingWebhookConfiguration>(mutatingWebhookConfigurationDefinition),
  validatingAdmissionPolicies: typedResource<ValidatingAdmissionPolicy>(validatingAdmissionPolicyDefinition),
  validatingAdmissionPolicyBindings: typedResource<ValidatingAdmissionPolicyBinding>(validatingAdmissionPolicyBindingDefinition),
  resourceQuotas: typedResource<ResourceQuota>(resourceQuotaDefinition),
  limitRanges: typedResource<LimitRange>(limitRangeDefinition),
  certificateSigningRequests: typedResource<CertificateSigningRequest>(certificateSigningRequestDefinition),
  apiServices: typedResource<APIService>(apiServiceDefinition),
  flowSchemas: typedResource<FlowSchema>(flowSchemaDefinition),
  priorityLevelConfigurations: typedResource<PriorityLevelConfiguration>(priorityLevelConfigurationDefinition),
  horizontalPodAutoscalers: typedResource<HorizontalPodAutoscaler>(horizontalPodAutoscalerDefinition),
};

export type BuiltinResourceName = keyof BuiltinResources;
export type ObjectOf<R> = R extends TypedResource<infer T> ? T : never;

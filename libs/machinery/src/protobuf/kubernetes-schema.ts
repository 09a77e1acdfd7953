import { parse, type Root } from 'protobufjs';

/**
 * The protobuf messages of the built-in kinds Kubernetes clients send as envelope payloads, with the
 * field numbers and wire types of Kubernetes' generated.proto files (meta/v1, util/intstr, core/v1, apps/v1, rbac/v1, policy/v1).
 * Only the messages these kinds need are declared. The numbers are Kubernetes' and cannot be derived
 * from the kinds' schemas; libs/api/src/kinds/kubernetes-protobuf.spec.ts checks every field against
 * Kubernetes' messages and against the kinds' schemas, and lists the schema fields not carried yet.
 *
 * Two field options carry what Go's JSON encoding of the same struct field does, since the wire
 * format alone cannot say it:
 * - `(ptr)`: the Go field is a pointer. It is on the wire, and in JSON, only when set, zero or not.
 * - `(keep)`: the Go field has no `omitempty`, so JSON shows it even when it holds the zero value.
 * Every other scalar is a Go value with `omitempty`: always on the wire (as Kubernetes' marshaller
 * writes it), absent from JSON when zero. Every other message field is a Go struct value: always on
 * the wire and always in JSON, empty or not, except `Time`/`MicroTime` (zero time is null in JSON).
 */
const KUBERNETES_PROTO = `
syntax = "proto2";
package svc.kube;

// meta/v1

message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message TypeMeta {
  optional string kind = 1;
  optional string apiVersion = 2;
}

message ListMeta {
  optional string selfLink = 1;
  optional string resourceVersion = 2;
  optional string continue = 3;
  optional int64 remainingItemCount = 4 [(ptr) = true];
}

message FieldsV1 {
  optional bytes Raw = 1;
}

message OwnerReference {
  optional string kind = 1 [(keep) = true];
  optional string name = 3 [(keep) = true];
  optional string uid = 4 [(keep) = true];
  optional string apiVersion = 5 [(keep) = true];
  optional bool controller = 6 [(ptr) = true];
  optional bool blockOwnerDeletion = 7 [(ptr) = true];
}

message ManagedFieldsEntry {
  optional string manager = 1;
  optional string operation = 2;
  optional string apiVersion = 3;
  optional Time time = 4 [(ptr) = true];
  optional string fieldsType = 6;
  optional FieldsV1 fieldsV1 = 7 [(ptr) = true];
  optional string subresource = 8;
}

message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
  optional string selfLink = 4;
  optional string uid = 5;
  optional string resourceVersion = 6;
  optional int64 generation = 7;
  optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9 [(ptr) = true];
  optional int64 deletionGracePeriodSeconds = 10 [(ptr) = true];
  map<string, string> labels = 11;
  map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}

message Condition {
  optional string type = 1 [(keep) = true];
  optional string status = 2 [(keep) = true];
  optional int64 observedGeneration = 3;
  optional Time lastTransitionTime = 4;
  optional string reason = 5 [(keep) = true];
  optional string message = 6 [(keep) = true];
}

message StatusCause {
  optional string reason = 1;
  optional string message = 2;
  optional string field = 3;
}

message StatusDetails {
  optional string name = 1;
  optional string group = 2;
  optional string kind = 3;
  optional string uid = 6;
  repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5;
}

message Status {
  optional ListMeta metadata = 1;
  optional string status = 2;
  optional string message = 3;
  optional string reason = 4;
  optional StatusDetails details = 5 [(ptr) = true];
  optional int32 code = 6;
}

message Preconditions {
  optional string uid = 1 [(ptr) = true];
  optional string resourceVersion = 2 [(ptr) = true];
}

message DeleteOptions {
  optional int64 gracePeriodSeconds = 1 [(ptr) = true];
  optional Preconditions preconditions = 2 [(ptr) = true];
  optional bool orphanDependents = 3 [(ptr) = true];
  optional string propagationPolicy = 4 [(ptr) = true];
  repeated string dryRun = 5;
}

// util/intstr

message IntOrString {
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
}

// core/v1

message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}

message LocalObjectReference {
  optional string name = 1;
}

message NamespaceSpec {
  repeated string finalizers = 1;
}

message NamespaceCondition {
  optional string type = 1 [(keep) = true];
  optional string status = 2 [(keep) = true];
  optional Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message NamespaceStatus {
  optional string phase = 1;
  repeated NamespaceCondition conditions = 2;
}

message Namespace {
  optional ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}

message Secret {
  optional ObjectMeta metadata = 1;
  map<string, bytes> data = 2;
  optional string type = 3;
  map<string, string> stringData = 4;
  optional bool immutable = 5 [(ptr) = true];
}

message ConfigMap {
  optional ObjectMeta metadata = 1;
  map<string, string> data = 2;
  map<string, bytes> binaryData = 3;
  optional bool immutable = 4 [(ptr) = true];
}

message ServiceAccount {
  optional ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2;
  repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4 [(ptr) = true];
}

message ServicePort {
  optional string name = 1;
  optional string protocol = 2;
  optional int32 port = 3 [(keep) = true];
  optional IntOrString targetPort = 4;
  optional int32 nodePort = 5;
  optional string appProtocol = 6 [(ptr) = true];
}

message ClientIPConfig {
  optional int32 timeoutSeconds = 1 [(ptr) = true];
}

message SessionAffinityConfig {
  optional ClientIPConfig clientIP = 1 [(ptr) = true];
}

message ServiceSpec {
  repeated ServicePort ports = 1;
  map<string, string> selector = 2;
  optional string clusterIP = 3;
  optional string type = 4;
  repeated string externalIPs = 5;
  optional string sessionAffinity = 7;
  optional string loadBalancerIP = 8;
  repeated string loadBalancerSourceRanges = 9;
  optional string externalName = 10;
  optional string externalTrafficPolicy = 11;
  optional int32 healthCheckNodePort = 12;
  optional bool publishNotReadyAddresses = 13;
  optional SessionAffinityConfig sessionAffinityConfig = 14 [(ptr) = true];
  optional string ipFamilyPolicy = 17 [(ptr) = true];
  repeated string clusterIPs = 18;
  repeated string ipFamilies = 19;
  optional bool allocateLoadBalancerNodePorts = 20 [(ptr) = true];
  optional string loadBalancerClass = 21 [(ptr) = true];
  optional string internalTrafficPolicy = 22 [(ptr) = true];
  optional string trafficDistribution = 23 [(ptr) = true];
}

message PortStatus {
  optional int32 port = 1 [(keep) = true];
  optional string protocol = 2 [(keep) = true];
  optional string error = 3 [(ptr) = true];
}

message LoadBalancerIngress {
  optional string ip = 1;
  optional string hostname = 2;
  optional string ipMode = 3 [(ptr) = true];
  repeated PortStatus ports = 4;
}

message LoadBalancerStatus {
  repeated LoadBalancerIngress ingress = 1;
}

message ServiceStatus {
  optional LoadBalancerStatus loadBalancer = 1;
  repeated Condition conditions = 2;
}

message Service {
  optional ObjectMeta metadata = 1;
  optional ServiceSpec spec = 2;
  optional ServiceStatus status = 3;
}
// api/resource

message Quantity {
  optional string string = 1;
}

// meta/v1 selectors

message LabelSelectorRequirement {
  optional string key = 1 [(keep) = true];
  optional string operator = 2 [(keep) = true];
  repeated string values = 3;
}

message LabelSelector {
  map<string, string> matchLabels = 1;
  repeated LabelSelectorRequirement matchExpressions = 2;
}

// core/v1 pods (the fields kubectl's generators set)

message ContainerPort {
  optional string name = 1;
  optional int32 hostPort = 2;
  optional int32 containerPort = 3 [(keep) = true];
  optional string protocol = 4;
  optional string hostIP = 5;
}

message EnvVar {
  optional string name = 1 [(keep) = true];
  optional string value = 2;
}

message ResourceRequirements {
  map<string, Quantity> limits = 1;
  map<string, Quantity> requests = 2;
}

message VolumeMount {
  optional string name = 1 [(keep) = true];
  optional bool readOnly = 2;
  optional string mountPath = 3 [(keep) = true];
  optional string subPath = 4;
}

message Container {
  optional string name = 1 [(keep) = true];
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated VolumeMount volumeMounts = 9;
  optional string terminationMessagePath = 13;
  optional string imagePullPolicy = 14;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
  optional string terminationMessagePolicy = 20;
}

message Toleration {
  optional string key = 1;
  optional string operator = 2;
  optional string value = 3;
  optional string effect = 4;
  optional int64 tolerationSeconds = 5 [(ptr) = true];
}

message PodSpec {
  repeated Container containers = 2 [(keep) = true];
  optional string restartPolicy = 3;
  optional int64 terminationGracePeriodSeconds = 4 [(ptr) = true];
  optional int64 activeDeadlineSeconds = 5 [(ptr) = true];
  optional string dnsPolicy = 6;
  map<string, string> nodeSelector = 7;
  optional string serviceAccountName = 8;
  optional string nodeName = 10;
  optional bool hostNetwork = 11;
  optional bool hostPID = 12;
  optional bool hostIPC = 13;
  repeated LocalObjectReference imagePullSecrets = 15;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional string schedulerName = 19;
  repeated Container initContainers = 20;
  optional bool automountServiceAccountToken = 21 [(ptr) = true];
  repeated Toleration tolerations = 22;
  optional string priorityClassName = 24;
  optional int32 priority = 25 [(ptr) = true];
  optional bool enableServiceLinks = 30 [(ptr) = true];
}

message PodTemplateSpec {
  optional ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}

message Pod {
  optional ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}

// apps/v1

message RollingUpdateDeployment {
  optional IntOrString maxUnavailable = 1 [(ptr) = true];
  optional IntOrString maxSurge = 2 [(ptr) = true];
}

message DeploymentStrategy {
  optional string type = 1;
  optional RollingUpdateDeployment rollingUpdate = 2 [(ptr) = true];
}

message DeploymentSpec {
  optional int32 replicas = 1 [(ptr) = true];
  optional LabelSelector selector = 2 [(ptr) = true];
  optional PodTemplateSpec template = 3;
  optional DeploymentStrategy strategy = 4;
  optional int32 minReadySeconds = 5;
  optional int32 revisionHistoryLimit = 6 [(ptr) = true];
  optional bool paused = 7;
  optional int32 progressDeadlineSeconds = 9 [(ptr) = true];
}

message Deployment {
  optional ObjectMeta metadata = 1;
  optional DeploymentSpec spec = 2;
}

message ReplicaSetSpec {
  optional int32 replicas = 1 [(ptr) = true];
  optional LabelSelector selector = 2 [(ptr) = true];
  optional PodTemplateSpec template = 3;
  optional int32 minReadySeconds = 4;
}

message ReplicaSet {
  optional ObjectMeta metadata = 1;
  optional ReplicaSetSpec spec = 2;
}

// rbac/v1

message PolicyRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}

message AggregationRule {
  repeated LabelSelector clusterRoleSelectors = 1;
}

message Role {
  optional ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
}

message ClusterRole {
  optional ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3 [(ptr) = true];
}

message Subject {
  optional string kind = 1 [(keep) = true];
  optional string apiGroup = 2;
  optional string name = 3 [(keep) = true];
  optional string namespace = 4;
}

message RoleRef {
  optional string apiGroup = 1 [(keep) = true];
  optional string kind = 2 [(keep) = true];
  optional string name = 3 [(keep) = true];
}

message RoleBinding {
  optional ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message ClusterRoleBinding {
  optional ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

// policy/v1

message Eviction {
  optional ObjectMeta metadata = 1;
  optional DeleteOptions deleteOptions = 2 [(ptr) = true];
}

message PodDisruptionBudgetSpec {
  optional IntOrString minAvailable = 1 [(ptr) = true];
  optional LabelSelector selector = 2 [(ptr) = true];
  optional IntOrString maxUnavailable = 3 [(ptr) = true];
  optional string unhealthyPodEvictionPolicy = 4 [(ptr) = true];
}

message PodDisruptionBudget {
  optional ObjectMeta metadata = 1;
  optional PodDisruptionBudgetSpec spec = 2;
}
`;

/** The package of every message in the schema. */
export const KUBERNETES_PACKAGE = 'svc.kube';

/** The parsed schema, every type resolved once so conversions can follow `resolvedType`. */
export const kubernetesRoot: Root = parse(KUBERNETES_PROTO, { keepCase: true }).root;
kubernetesRoot.resolveAll();

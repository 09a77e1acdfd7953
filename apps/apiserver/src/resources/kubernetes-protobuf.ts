import { parse, type Type } from 'protobufjs';

/**
 * Reads the protobuf messages Kubernetes clients put in the envelope's `raw` when they create built-in
 * objects (kubectl's `create namespace|configmap|secret|deployment|service|serviceaccount`, `expose`
 * and typed client libraries send them; they never fall back to JSON). Only the kinds and fields such
 * clients write are described, by their Kubernetes field numbers; other fields are skipped, as
 * fields the schema does not know would be. Responses never use this format: this server answers
 * those clients in JSON, which they accept.
 */
const WIRE_PROTO = `
syntax = "proto2";
package kube;

message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message Quantity { optional string string = 1; }
message IntOrString { optional int64 type = 1; optional int32 intVal = 2; optional string strVal = 3; }
message FieldsV1 { optional bytes Raw = 1; }

message OwnerReference {
  optional string kind = 1; optional string name = 3; optional string uid = 4; optional string apiVersion = 5;
  optional bool controller = 6; optional bool blockOwnerDeletion = 7;
}
message ManagedFieldsEntry {
  optional string manager = 1; optional string operation = 2; optional string apiVersion = 3; optional Time time = 4;
  optional string fieldsType = 6; optional FieldsV1 fieldsV1 = 7; optional string subresource = 8;
}
message ObjectMeta {
  optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional string selfLink = 4;
  optional string uid = 5; optional string resourceVersion = 6; optional int64 generation = 7;
  optional Time creationTimestamp = 8; optional Time deletionTimestamp = 9; optional int64 deletionGracePeriodSeconds = 10;
  map<string, string> labels = 11; map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13; repeated string finalizers = 14; repeated ManagedFieldsEntry managedFields = 17;
}
message LabelSelectorRequirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message LabelSelector { map<string, string> matchLabels = 1; repeated LabelSelectorRequirement matchExpressions = 2; }
message ObjectReference {
  optional string kind = 1; optional string namespace = 2; optional string name = 3; optional string uid = 4;
  optional string apiVersion = 5; optional string resourceVersion = 6; optional string fieldPath = 7;
}
message LocalObjectReference { optional string name = 1; }

message NamespaceSpec { repeated string finalizers = 1; }
message Namespace { optional ObjectMeta metadata = 1; optional NamespaceSpec spec = 2; }

message ConfigMap {
  optional ObjectMeta metadata = 1; map<string, string> data = 2; map<string, bytes> binaryData = 3; optional bool immutable = 4;
}
message Secret {
  optional ObjectMeta metadata = 1; map<string, bytes> data = 2; optional string type = 3;
  map<string, string> stringData = 4; optional bool immutable = 5;
}
message ServiceAccount {
  optional ObjectMeta metadata = 1; repeated ObjectReference secrets = 2; repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4;
}

message ServicePort {
  optional string name = 1; optional string protocol = 2; optional int32 port = 3; optional IntOrString targetPort = 4;
  optional int32 nodePort = 5; optional string appProtocol = 6;
}
message ServiceSpec {
  repeated ServicePort ports = 1; map<string, string> selector = 2; optional string clusterIP = 3; optional string type = 4;
  repeated string externalIPs = 5; optional string sessionAffinity = 7; optional string loadBalancerIP = 8;
  repeated string loadBalancerSourceRanges = 9; optional string externalName = 10; optional string externalTrafficPolicy = 11;
  optional int32 healthCheckNodePort = 12; optional bool publishNotReadyAddresses = 13;
}
message Service { optional ObjectMeta metadata = 1; optional ServiceSpec spec = 2; }

message ContainerPort { optional string name = 1; optional int32 hostPort = 2; optional int32 containerPort = 3; optional string protocol = 4; optional string hostIP = 5; }
message EnvVar { optional string name = 1; optional string value = 2; }
message ResourceRequirements { map<string, Quantity> limits = 1; map<string, Quantity> requests = 2; }
message VolumeMount { optional string name = 1; optional bool readOnly = 2; optional string mountPath = 3; optional string subPath = 4; }
message Container {
  optional string name = 1; optional string image = 2; repeated string command = 3; repeated string args = 4;
  optional string workingDir = 5; repeated ContainerPort ports = 6; repeated EnvVar env = 7; optional ResourceRequirements resources = 8;
  repeated VolumeMount volumeMounts = 9; optional string terminationMessagePath = 13; optional string imagePullPolicy = 14;
  optional bool stdin = 16; optional bool stdinOnce = 17; optional bool tty = 18; optional string terminationMessagePolicy = 20;
}
message Toleration { optional string key = 1; optional string operator = 2; optional string value = 3; optional string effect = 4; optional int64 tolerationSeconds = 5; }
message PodSpec {
  repeated Container containers = 2; optional string restartPolicy = 3; optional int64 terminationGracePeriodSeconds = 4;
  optional int64 activeDeadlineSeconds = 5; optional string dnsPolicy = 6; map<string, string> nodeSelector = 7;
  optional string serviceAccountName = 8; optional string nodeName = 10; optional bool hostNetwork = 11; optional bool hostPID = 12;
  optional bool hostIPC = 13; repeated LocalObjectReference imagePullSecrets = 15; optional string hostname = 16; optional string subdomain = 17;
  optional string schedulerName = 19; repeated Container initContainers = 20; optional bool automountServiceAccountToken = 21;
  repeated Toleration tolerations = 22; optional string priorityClassName = 24; optional int32 priority = 25; optional bool enableServiceLinks = 30;
}
message PodTemplateSpec { optional ObjectMeta metadata = 1; optional PodSpec spec = 2; }
message Pod { optional ObjectMeta metadata = 1; optional PodSpec spec = 2; }

message RollingUpdateDeployment { optional IntOrString maxUnavailable = 1; optional IntOrString maxSurge = 2; }
message DeploymentStrategy { optional string type = 1; optional RollingUpdateDeployment rollingUpdate = 2; }
message DeploymentSpec {
  optional int32 replicas = 1; optional LabelSelector selector = 2; optional PodTemplateSpec template = 3;
  optional DeploymentStrategy strategy = 4; optional int32 minReadySeconds = 5; optional int32 revisionHistoryLimit = 6;
  optional bool paused = 7; optional int32 progressDeadlineSeconds = 9;
}
message Deployment { optional ObjectMeta metadata = 1; optional DeploymentSpec spec = 2; }
message ReplicaSetSpec { optional int32 replicas = 1; optional LabelSelector selector = 2; optional PodTemplateSpec template = 3; optional int32 minReadySeconds = 4; }
message ReplicaSet { optional ObjectMeta metadata = 1; optional ReplicaSetSpec spec = 2; }
`;

/** Kinds (by `apiVersion` and `kind` of the envelope) whose message is described above. */
const MESSAGE_OF_KIND: Readonly<Record<string, string>> = {
  'v1/Namespace': 'Namespace',
  'v1/ConfigMap': 'ConfigMap',
  'v1/Secret': 'Secret',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/Service': 'Service',
  'v1/Pod': 'Pod',
  'apps/v1/Deployment': 'Deployment',
  'apps/v1/ReplicaSet': 'ReplicaSet',
};

/**
 * Fields that are pointers in Kubernetes' Go types: present on the wire only when set, so a zero value
 * is meant. Every other field is always written, and its zero value means "not set" (JSON omitempty).
 */
const POINTER_FIELDS = new Set([
  'ObjectMeta.deletionGracePeriodSeconds',
  'OwnerReference.controller',
  'OwnerReference.blockOwnerDeletion',
  'ConfigMap.immutable',
  'Secret.immutable',
  'ServiceAccount.automountServiceAccountToken',
  'PodSpec.terminationGracePeriodSeconds',
  'PodSpec.activeDeadlineSeconds',
  'PodSpec.automountServiceAccountToken',
  'PodSpec.priority',
  'PodSpec.enableServiceLinks',
  'Toleration.tolerationSeconds',
  'RollingUpdateDeployment.maxUnavailable',
  'RollingUpdateDeployment.maxSurge',
  'DeploymentSpec.replicas',
  'DeploymentSpec.revisionHistoryLimit',
  'DeploymentSpec.progressDeadlineSeconds',
  'ReplicaSetSpec.replicas',
]);

let root: ReturnType<typeof parse>['root'] | undefined;

function typeNamed(name: string): Type {
  root ??= parse(WIRE_PROTO, { keepCase: true }).root;
  return root.lookupType(`kube.${name}`);
}

/**
 * The JSON form of a Kubernetes protobuf message of one of the kinds above, with apiVersion and kind
 * set; undefined for a kind this server cannot read in protobuf. Throws on malformed bytes.
 */
export function decodeKubernetesProtobuf(apiVersion: string, kind: string, raw: Uint8Array): Record<string, unknown> | undefined {
  const name = MESSAGE_OF_KIND[`${apiVersion}/${kind}`];
  if (name === undefined) return undefined;
  const type = typeNamed(name);
  const message = type.decode(raw);
  const plain = type.toObject(message, { longs: Number, bytes: String, defaults: false, arrays: false, objects: false }) as Record<string, unknown>;
  return { apiVersion, kind, ...(toJson(plain, type) as Record<string, unknown>) };
}

function toJson(value: Record<string, unknown>, type: Type): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(type.fields)) {
    if (!(name in value)) continue;
    const given = value[name];
    field.resolve();
    const nested = field.resolvedType as Type | null;
    let converted: unknown;
    if (field.map) {
      const entries = Object.entries(given as Record<string, unknown>);
      converted = Object.fromEntries(entries.map(([k, v]) => [k, nested ? special(v as Record<string, unknown>, nested) : v]));
    } else if (field.repeated) {
      converted = (given as unknown[]).map((item) => (nested ? special(item as Record<string, unknown>, nested) : item));
    } else if (nested) {
      converted = special(given as Record<string, unknown>, nested);
    } else {
      converted = given;
    }
    if (converted === undefined) continue;
    if (!POINTER_FIELDS.has(`${type.name}.${name}`) && (converted === '' || converted === 0 || converted === false)) continue;
    out[name] = converted;
  }
  return out;
}

/** Kubernetes' hand-written wire types become their JSON forms; other messages convert field by field. */
function special(value: Record<string, unknown>, type: Type): unknown {
  switch (type.name) {
    case 'Time': {
      const seconds = Number(value.seconds ?? 0);
      return seconds === 0 ? undefined : `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
    }
    case 'Quantity':
      return value.string ?? '';
    case 'IntOrString':
      return Number(value.type ?? 0) === 1 ? (value.strVal ?? '') : Number(value.intVal ?? 0);
    case 'FieldsV1':
      return typeof value.Raw === 'string' && value.Raw !== '' ? (JSON.parse(Buffer.from(value.Raw, 'base64').toString('utf8')) as unknown) : {};
    default:
      return toJson(value, type);
  }
}

/**
 * The CRI messages as plain objects, camelCase, as `cri-protocol.ts` declares them. Enums are their
 * names; int64 fields are numbers (nanosecond timestamps lose precision below a microsecond, which
 * nothing here reads). Every field is optional on the way in: proto3 has no required fields.
 */

export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type MountPropagation = 'PROPAGATION_PRIVATE' | 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type RuntimeContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

export type Labels = Record<string, string>;

export interface VersionResponse {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

export interface DNSConfig {
  servers?: string[];
  searches?: string[];
  options?: string[];
}

export interface PortMapping {
  protocol?: Protocol;
  containerPort?: number;
  hostPort?: number;
  hostIp?: string;
}

export interface Mount {
  containerPath: string;
  hostPath: string;
  readonly?: boolean;
  selinuxRelabel?: boolean;
  propagation?: MountPropagation;
}

export interface NamespaceOption {
  network?: NamespaceMode;
  pid?: NamespaceMode;
  ipc?: NamespaceMode;
  targetId?: string;
}

export interface Int64Value {
  value: number;
}

export interface SecurityProfile {
  profileType?: 'RuntimeDefault' | 'Unconfined' | 'Localhost';
  localhostRef?: string;
}

export interface LinuxSandboxSecurityContext {
  namespaceOptions?: NamespaceOption;
  runAsUser?: Int64Value;
  runAsGroup?: Int64Value;
  readonlyRootfs?: boolean;
  supplementalGroups?: number[];
  privileged?: boolean;
  seccomp?: SecurityProfile;
}

export interface LinuxContainerResources {
  cpuPeriod?: number;
  cpuQuota?: number;
  cpuShares?: number;
  memoryLimitInBytes?: number;
  oomScoreAdj?: number;
  cpusetCpus?: string;
  cpusetMems?: string;
  unified?: Labels;
  memorySwapLimitInBytes?: number;
}

export interface LinuxPodSandboxConfig {
  cgroupParent?: string;
  securityContext?: LinuxSandboxSecurityContext;
  sysctls?: Labels;
  overhead?: LinuxContainerResources;
  resources?: LinuxContainerResources;
}

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt?: number;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname?: string;
  logDirectory?: string;
  dnsConfig?: DNSConfig;
  portMappings?: PortMapping[];
  labels?: Labels;
  annotations?: Labels;
  linux?: LinuxPodSandboxConfig;
}

export interface PodSandboxStatus {
  id: string;
  metadata?: PodSandboxMetadata;
  state: PodSandboxState;
  createdAt: number;
  network?: { ip?: string; additionalIps?: { ip: string }[] };
  labels?: Labels;
  annotations?: Labels;
  runtimeHandler?: string;
}

export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState };
  labelSelector?: Labels;
}

export interface PodSandbox {
  id: string;
  metadata?: PodSandboxMetadata;
  state: PodSandboxState;
  createdAt: number;
  labels?: Labels;
  annotations?: Labels;
  runtimeHandler?: string;
}

export interface ImageSpec {
  image: string;
  annotations?: Labels;
  userSpecifiedImage?: string;
}

export interface KeyValue {
  key: string;
  /** Bytes on the wire (an environment value need not be UTF-8). */
  value: Uint8Array | string;
}

export interface LinuxContainerSecurityContext {
  capabilities?: { addCapabilities?: string[]; dropCapabilities?: string[] };
  privileged?: boolean;
  namespaceOptions?: NamespaceOption;
  runAsUser?: Int64Value;
  runAsUsername?: string;
  readonlyRootfs?: boolean;
  supplementalGroups?: number[];
  noNewPrivs?: boolean;
  runAsGroup?: Int64Value;
  maskedPaths?: string[];
  readonlyPaths?: string[];
  seccomp?: SecurityProfile;
}

export interface ContainerMetadata {
  name: string;
  attempt?: number;
}

export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: ImageSpec;
  command?: string[];
  args?: string[];
  workingDir?: string;
  envs?: KeyValue[];
  mounts?: Mount[];
  labels?: Labels;
  annotations?: Labels;
  logPath?: string;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  linux?: { resources?: LinuxContainerResources; securityContext?: LinuxContainerSecurityContext };
}

export interface ContainerFilter {
  id?: string;
  state?: { state: RuntimeContainerState };
  podSandboxId?: string;
  labelSelector?: Labels;
}

export interface RuntimeContainer {
  id: string;
  podSandboxId: string;
  metadata?: ContainerMetadata;
  image?: ImageSpec;
  imageRef?: string;
  state: RuntimeContainerState;
  createdAt: number;
  labels?: Labels;
  annotations?: Labels;
}

export interface RuntimeContainerStatus {
  id: string;
  metadata?: ContainerMetadata;
  state: RuntimeContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  image?: ImageSpec;
  imageRef: string;
  reason: string;
  message: string;
  labels?: Labels;
  annotations?: Labels;
  mounts?: Mount[];
  logPath: string;
}

export interface ExecSyncResponse {
  stdout: Uint8Array;
  stderr: Uint8Array;
  exitCode: number;
}

export interface ContainerStats {
  attributes?: { id: string; metadata?: ContainerMetadata; labels?: Labels; annotations?: Labels };
  cpu?: { timestamp: number; usageCoreNanoSeconds?: { value: number }; usageNanoCores?: { value: number } };
  memory?: { timestamp: number; workingSetBytes?: { value: number }; usageBytes?: { value: number }; rssBytes?: { value: number } };
  writableLayer?: FilesystemUsage;
}

export interface FilesystemUsage {
  timestamp: number;
  fsId?: { mountpoint: string };
  usedBytes?: { value: number };
  inodesUsed?: { value: number };
}

export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

export interface StatusResponse {
  status?: { conditions?: RuntimeCondition[] };
  info?: Labels;
}

export interface Image {
  id: string;
  repoTags?: string[];
  repoDigests?: string[];
  size: number;
  uid?: Int64Value;
  username?: string;
  spec?: ImageSpec;
  pinned?: boolean;
}

export interface AuthConfig {
  username?: string;
  password?: string;
  auth?: string;
  serverAddress?: string;
  identityToken?: string;
  registryToken?: string;
}

import { metaTime } from '@svc/machinery';
import type { Node, NodeCondition } from '@svc/api';
import { quantityMilliValue, quantityValue } from '@svc/api';
import type { Image, StatusResponse, VersionResponse } from '@svc/cri';
import type { HostInfo, HostUsage } from './host-facts';

/** Kubernetes' default hard eviction thresholds; here they only decide the pressure conditions. */
export type NodeStatus = NonNullable<Node['status']>;

const MEMORY_AVAILABLE_MIN = 100 * 1024 * 1024;
const NODEFS_AVAILABLE_MIN_RATIO = 0.1;
const PID_USED_MAX_RATIO = 0.9;

export interface NodeStatusInputs {
  host: HostInfo;
  /** Memory, the root directory's filesystem and processes, as the host has them now. */
  usage: HostUsage;
  runtimeVersion?: VersionResponse;
  runtimeStatus?: StatusResponse;
  runtimeError?: string;
  agentVersion: string;
  rootDir: string;
  maxPods: number;
  systemReserved: Readonly<Record<string, string | number>>;
  svcReserved: Readonly<Record<string, string | number>>;
  addresses: Array<{ type: 'InternalIP' | 'Hostname'; address: string }>;
  port: number;
  images: readonly Image[];
  maxImages: number;
  previous?: NodeStatus;
  now: Date;
}

function reserved(inputs: NodeStatusInputs, resource: string, milli: boolean): number {
  let total = 0;
  for (const map of [inputs.systemReserved, inputs.svcReserved]) {
    const value = map[resource];
    if (value !== undefined) total += (milli ? quantityMilliValue(value) : quantityValue(value)) ?? 0;
  }
  return total;
}

/** Capacity and allocatable (capacity less systemReserved and svcReserved), as quantities. */
export function nodeResources(inputs: NodeStatusInputs): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const memory = inputs.usage.memory.total;
  const storage = inputs.usage.filesystem.capacity;
  const cpuMilli = inputs.host.cpus * 1000;
  const capacity = {
    cpu: String(inputs.host.cpus),
    memory: `${Math.floor(memory / 1024)}Ki`,
    pods: String(inputs.maxPods),
    'ephemeral-storage': `${Math.floor(storage / 1024)}Ki`,
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
  };
  const allocCpu = Math.max(0, cpuMilli - reserved(inputs, 'cpu', true));
  const allocMemory = Math.max(0, memory - reserved(inputs, 'memory', false));
  const allocStorage = Math.max(0, storage - reserved(inputs, 'ephemeral-storage', false));
  const allocatable = {
    cpu: allocCpu % 1000 === 0 ? String(allocCpu / 1000) : `${allocCpu}m`,
    memory: `${Math.floor(allocMemory / 1024)}Ki`,
    pods: String(inputs.maxPods),
    'ephemeral-storage': String(allocStorage),
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
  };
  return { capacity, allocatable };
}

function condition(type: string, ok: boolean, reason: string, message: string, inputs: NodeStatusInputs): NodeCondition {
  const before = inputs.previous?.conditions?.find((c) => c.type === type);
  const status = ok ? 'True' : 'False';
  const now = metaTime(inputs.now);
  return {
    type,
    status,
    lastHeartbeatTime: now,
    lastTransitionTime: before?.status === status && before.lastTransitionTime ? before.lastTransitionTime : now,
    reason,
    message,
  };
}

/** Why the node is not ready, from the runtime's own conditions; undefined when it is. */
function notReadyReason(inputs: NodeStatusInputs): string | undefined {
  if (inputs.runtimeError) return `container runtime is down: ${inputs.runtimeError}`;
  const conditions = inputs.runtimeStatus?.status?.conditions ?? [];
  const failing = conditions.filter((c) => (c.type === 'RuntimeReady' || c.type === 'NetworkReady') && !c.status);
  if (failing.length === 0 && conditions.length > 0) return undefined;
  if (conditions.length === 0) return 'container runtime status check may not have completed yet';
  return failing
    .map((c) => `container runtime ${c.type === 'NetworkReady' ? 'network ' : ''}not ready: ${c.type}=false reason:${c.reason} message:${c.message}`)
    .join(', ');
}

/** The pressure conditions by Kubernetes' default hard eviction thresholds, and Ready by the runtime's own conditions. */
function nodeConditions(inputs: NodeStatusInputs): NodeCondition[] {
  const { memory, filesystem: fs, pids } = inputs.usage;
  const notReady = notReadyReason(inputs);
  const memoryPressure = memory.available > 0 && memory.available < MEMORY_AVAILABLE_MIN;
  const diskPressure = fs.capacity > 0 && fs.available / fs.capacity < NODEFS_AVAILABLE_MIN_RATIO;
  const pidPressure = pids.running / pids.max > PID_USED_MAX_RATIO;
  const pressure = (type: string, on: boolean, reasons: [string, string], what: [string, string]) =>
    condition(type, on, on ? reasons[0] : reasons[1], `node agent has ${on ? what[0] : what[1]}`, inputs);
  return [
    pressure(
      'MemoryPressure',
      memoryPressure,
      ['NodeAgentHasInsufficientMemory', 'NodeAgentHasSufficientMemory'],
      ['insufficient memory available', 'sufficient memory available'],
    ),
    pressure('DiskPressure', diskPressure, ['NodeAgentHasDiskPressure', 'NodeAgentHasNoDiskPressure'], ['disk pressure', 'no disk pressure']),
    pressure(
      'PIDPressure',
      pidPressure,
      ['NodeAgentHasInsufficientPID', 'NodeAgentHasSufficientPID'],
      ['insufficient PID available', 'sufficient PID available'],
    ),
    condition(
      'Ready',
      notReady === undefined,
      notReady === undefined ? 'NodeAgentReady' : 'NodeAgentNotReady',
      notReady ?? 'node agent is posting ready status',
      inputs,
    ),
  ];
}

/** The largest images first, at most `maxImages` (all when negative). */
function nodeImages(inputs: NodeStatusInputs): NodeStatus['images'] {
  const images = [...inputs.images]
    .sort((a, b) => b.size - a.size)
    .slice(0, inputs.maxImages < 0 ? undefined : inputs.maxImages)
    .map((image) => ({ names: [...(image.repoDigests ?? []), ...(image.repoTags ?? [])], sizeBytes: image.size }));
  return images.length > 0 ? images : undefined;
}

/** The Node's status as Kubernetes' node agent reports it. */
export function nodeStatus(inputs: NodeStatusInputs): NodeStatus {
  const { capacity, allocatable } = nodeResources(inputs);
  const host = inputs.host;
  return {
    capacity,
    allocatable,
    conditions: nodeConditions(inputs),
    addresses: inputs.addresses,
    daemonEndpoints: { kubeletEndpoint: { Port: inputs.port } },
    nodeInfo: {
      machineID: host.machineID,
      systemUUID: host.systemUUID,
      bootID: host.bootID,
      kernelVersion: host.kernelVersion,
      osImage: host.osImage,
      containerRuntimeVersion: inputs.runtimeVersion ? `${inputs.runtimeVersion.runtimeName}://${inputs.runtimeVersion.runtimeVersion}` : '',
      kubeletVersion: inputs.agentVersion,
      kubeProxyVersion: '',
      operatingSystem: host.operatingSystem,
      architecture: host.architecture,
    },
    images: nodeImages(inputs),
  };
}

/** The status without its heartbeat times: a change of anything else is posted at once. */
export function statusSignature(status: NodeStatus): string {
  return JSON.stringify({ ...status, conditions: status.conditions?.map((c) => ({ ...c, lastHeartbeatTime: undefined })) });
}

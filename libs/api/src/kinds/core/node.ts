import { Type, type Static } from '@sinclair/typebox';
import { describeFields, FreeForm, Int32, Int64, ListAtomic, ListSet, Quantity, StringEnum, StringMap, Time } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ListMap } from '../../schema/builders';
import { TaintEffects } from './pod-spec';

export const TaintSchema = Type.Object({
  key: Type.String({ minLength: 1 }),
  value: Type.Optional(Type.String()),
  effect: StringEnum(TaintEffects),
  timeAdded: Type.Optional(Time()),
});
export type Taint = Static<typeof TaintSchema>;

export const NodeAddressTypes = ['Hostname', 'InternalIP', 'ExternalIP', 'InternalDNS', 'ExternalDNS'] as const;

export const NodeConditionSchema = kindConditionSchema({
  lastHeartbeatTime: OptionalTime(),
  lastTransitionTime: OptionalTime(),
});
export type NodeCondition = Static<typeof NodeConditionSchema>;

export const NodeSystemInfoSchema = Type.Object({
  machineID: Type.Optional(Type.String()),
  systemUUID: Type.Optional(Type.String()),
  bootID: Type.Optional(Type.String()),
  kernelVersion: Type.Optional(Type.String()),
  osImage: Type.Optional(Type.String()),
  containerRuntimeVersion: Type.Optional(Type.String()),
  kubeletVersion: Type.Optional(Type.String()),
  kubeProxyVersion: Type.Optional(Type.String()),
  operatingSystem: Type.Optional(Type.String()),
  architecture: Type.Optional(Type.String()),
  swap: Type.Optional(FreeForm()),
});

export const NodeSpecSchema = Type.Object({
  podCIDR: Type.Optional(Type.String()),
  podCIDRs: Type.Optional(ListSet(Type.String())),
  providerID: Type.Optional(Type.String()),
  unschedulable: Type.Optional(Type.Boolean()),
  /** Atomic as in Kubernetes' NodeSpec (no merge key): the writer of the taints owns the whole list. */
  taints: Type.Optional(ListAtomic(TaintSchema)),
  configSource: Type.Optional(FreeForm()),
  externalID: Type.Optional(Type.String()),
});

export const NodeStatusSchema = Type.Object({
  capacity: Type.Optional(StringMap(Quantity())),
  allocatable: Type.Optional(StringMap(Quantity())),
  phase: Type.Optional(StringEnum(['Pending', 'Running', 'Terminated'] as const)),
  conditions: Type.Optional(ListMap(NodeConditionSchema, ['type'])),
  /** Strategic merge by type, atomic for apply (dual-stack nodes carry two InternalIP entries). */
  addresses: Type.Optional(
    ListAtomic(Type.Object({ type: StringEnum(NodeAddressTypes), address: Type.String() }), {
      'x-svc-patch-merge-key': 'type',
      'x-svc-patch-strategy': 'merge',
    }),
  ),
  daemonEndpoints: Type.Optional(Type.Object({ kubeletEndpoint: Type.Optional(Type.Object({ Port: Int32({ minimum: 0, maximum: 65535 }) })) })),
  nodeInfo: Type.Optional(NodeSystemInfoSchema),
  images: Type.Optional(ListAtomic(Type.Object({ names: Type.Optional(ListAtomic(Type.String())), sizeBytes: Type.Optional(Int64()) }))),
  volumesInUse: Type.Optional(ListAtomic(Type.String())),
  volumesAttached: Type.Optional(ListAtomic(Type.Object({ name: Type.String(), devicePath: Type.String() }))),
  config: Type.Optional(FreeForm()),
  runtimeHandlers: Type.Optional(ListAtomic(FreeForm())),
  features: Type.Optional(FreeForm()),
});

export const NodeSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  // A struct value in Go: `spec: {}` when empty.
  spec: Type.Optional(Type.Object(NodeSpecSchema.properties, { default: {} })),
  status: Type.Optional(NodeStatusSchema),
});
export type Node = Static<typeof NodeSchema>;
export type NodeList = List<Node>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  TaintSchema,
  {
    key: 'The key of the taint, a qualified name such as node.kubernetes.io/unreachable.',
    value: 'The value of the taint; may be empty.',
    effect:
      'What it does to pods that do not tolerate it: NoSchedule (none is placed on the node), PreferNoSchedule (the scheduler avoids the node) or NoExecute (none is placed, and those running are evicted).',
    timeAdded: 'When a NoExecute taint was added; written by the server.',
  },
  'A mark on a node that keeps away the pods that do not tolerate it.',
);
describeFields(
  NodeConditionSchema,
  conditionFieldDescriptions(
    NodeConditionSchema,
    'Ready (the node agent is healthy and takes pods), MemoryPressure, DiskPressure, PIDPressure or NetworkUnavailable.',
  ),
  'One aspect of the health of a node.',
);
describeFields(
  NodeSystemInfoSchema,
  {
    machineID: 'The machine ID of the node, from /etc/machine-id.',
    systemUUID: "The node's hardware UUID, as its firmware reports it.",
    bootID: "The ID of the node's current boot; it changes with every reboot.",
    kernelVersion: 'The kernel release, as `uname -r` gives it.',
    osImage: 'The operating system, as /etc/os-release names it.',
    containerRuntimeVersion: 'The container runtime and its version, as `<runtime>://<version>`.',
    kubeletVersion: "The node agent's version.",
    kubeProxyVersion: 'Deprecated, as it was never reliable; left empty.',
    operatingSystem: 'linux or windows.',
    architecture: 'The CPU architecture, such as amd64 or arm64.',
    swap: "The node's swap memory: its capacity in bytes.",
  },
  'Facts about the system of a node, as its node agent reports them.',
);
describeFields(
  NodeSpecSchema,
  {
    podCIDR: 'The range of pod IPs given to the node: the first of podCIDRs.',
    podCIDRs: 'The ranges of pod IPs given to the node, at most one per address family, by node IPAM or its registration. Once set, they cannot change.',
    providerID: "The node's ID at its cloud provider, as `<provider>://<id>`.",
    unschedulable: 'When true, no new pod is placed on the node (`kubectl cordon`); the pods there keep running.',
    taints: 'Taints that keep away the pods that do not tolerate them.',
    configSource: 'Deprecated: the source of a dynamic node agent configuration, a feature Kubernetes removed. Not acted on.',
    externalID: 'Deprecated; not used.',
  },
  'How a node is to be used: its pod IP ranges, its taints and whether it takes new pods.',
);
describeFields(
  NodeStatusSchema,
  {
    capacity: "The node's resources in all: cpu, memory, ephemeral-storage, pods and the like.",
    allocatable: "What of them pods may use, after the system's and the node agent's reservations; the scheduler places pods by it.",
    phase: 'Deprecated; not set.',
    conditions: 'Ready, MemoryPressure, DiskPressure, PIDPressure and NetworkUnavailable, each with why.',
    addresses: "The node's addresses, each with its type.",
    'addresses.type': 'Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.',
    'addresses.address': 'The address.',
    daemonEndpoints: 'Where the daemons of the node listen.',
    'daemonEndpoints.kubeletEndpoint': "The node agent's endpoint.",
    'daemonEndpoints.kubeletEndpoint.Port': 'The port the node agent serves its API on.',
    nodeInfo: 'The versions and IDs of what the node runs.',
    images: 'The images on the node, as its node agent last listed them.',
    'images.names': 'The names the image goes by: its tags and digests.',
    'images.sizeBytes': 'Its size in bytes.',
    volumesInUse: 'The attached volumes the node has mounted.',
    volumesAttached: 'The volumes attached to the node.',
    'volumesAttached.name': 'The name of the volume.',
    'volumesAttached.devicePath': 'Where the volume appears on the node.',
    config: 'Deprecated: the state of a dynamic node agent configuration.',
    runtimeHandlers: 'The handlers the container runtime offers, with the features of each.',
    features: 'Features the container runtime has, such as the supplemental groups policy.',
  },
  "What a node's node agent last reported of it.",
);
(NodeSchema as { description?: string }).description = 'A machine that runs pods. Its node agent registers it and reports its capacity, health and system.';

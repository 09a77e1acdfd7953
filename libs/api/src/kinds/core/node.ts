import { Type, type Static } from '@sinclair/typebox';
import { FreeForm, Int32, Int64, ListAtomic, ListSet, Quantity, StringEnum, StringMap, Time } from '../../schema/builders';
import { kindConditionSchema, OptionalTime } from '../../meta/condition';
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

import { Type, type Static } from '@sinclair/typebox';
import { FreeForm, Int32, ListAtomic, ListMap, StringEnum, StringMap, Quantity, Time } from '../../schema/builders';
import { kindConditionSchema, OptionalTime } from '../../meta/condition';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PodSpecSchema } from './pod-spec';

export const PodPhases = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
export type PodPhase = (typeof PodPhases)[number];

export const ContainerStateSchema = Type.Object({
  waiting: Type.Optional(Type.Object({ reason: Type.Optional(Type.String()), message: Type.Optional(Type.String()) })),
  running: Type.Optional(Type.Object({ startedAt: Type.Optional(Time()) })),
  terminated: Type.Optional(
    Type.Object({
      exitCode: Int32(),
      signal: Type.Optional(Int32()),
      reason: Type.Optional(Type.String()),
      message: Type.Optional(Type.String()),
      startedAt: Type.Optional(Time()),
      finishedAt: Type.Optional(Time()),
      containerID: Type.Optional(Type.String()),
    }),
  ),
});
export type ContainerState = Static<typeof ContainerStateSchema>;

/** Only `name` is required: the server's checks on status are those of Kubernetes' Go code, not of its OpenAPI. */
export const ContainerStatusSchema = Type.Object({
  name: Type.String(),
  state: Type.Optional(ContainerStateSchema),
  lastState: Type.Optional(ContainerStateSchema),
  ready: Type.Optional(Type.Boolean()),
  restartCount: Type.Optional(Int32({ minimum: 0 })),
  image: Type.Optional(Type.String()),
  imageID: Type.Optional(Type.String()),
  containerID: Type.Optional(Type.String()),
  started: Type.Optional(Type.Boolean()),
  allocatedResources: Type.Optional(StringMap(Quantity())),
  resources: Type.Optional(FreeForm()),
  volumeMounts: Type.Optional(ListAtomic(FreeForm())),
  user: Type.Optional(FreeForm()),
  stopSignal: Type.Optional(Type.String()),
});
export type ContainerStatus = Static<typeof ContainerStatusSchema>;

export const PodConditionSchema = kindConditionSchema({
  observedGeneration: Type.Optional(Type.Integer()),
  lastProbeTime: OptionalTime(),
  lastTransitionTime: OptionalTime(),
});
export type PodCondition = Static<typeof PodConditionSchema>;

const IPEntry = () => Type.Object({ ip: Type.String() });

export const PodStatusSchema = Type.Object({
  phase: Type.Optional(StringEnum(PodPhases)),
  conditions: Type.Optional(ListMap(PodConditionSchema, ['type'])),
  message: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  nominatedNodeName: Type.Optional(Type.String()),
  hostIP: Type.Optional(Type.String()),
  hostIPs: Type.Optional(ListAtomic(IPEntry(), { 'x-svc-patch-merge-key': 'ip', 'x-svc-patch-strategy': 'merge' })),
  podIP: Type.Optional(Type.String()),
  podIPs: Type.Optional(ListMap(IPEntry(), ['ip'])),
  startTime: Type.Optional(Time()),
  initContainerStatuses: Type.Optional(ListAtomic(ContainerStatusSchema)),
  containerStatuses: Type.Optional(ListAtomic(ContainerStatusSchema)),
  ephemeralContainerStatuses: Type.Optional(ListAtomic(ContainerStatusSchema)),
  qosClass: Type.Optional(StringEnum(['Guaranteed', 'Burstable', 'BestEffort'] as const)),
  resize: Type.Optional(Type.String()),
  resourceClaimStatuses: Type.Optional(ListMap(FreeForm({ required: ['name'] }), ['name'])),
  observedGeneration: Type.Optional(Type.Integer()),
});
export type PodStatus = Static<typeof PodStatusSchema>;

export const PodSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: PodSpecSchema,
  status: Type.Optional(PodStatusSchema),
});
export type Pod = Static<typeof PodSchema>;
export type PodList = List<Pod>;

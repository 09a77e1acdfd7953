import { Type, type Static } from '@sinclair/typebox';
import { describeFields, FreeForm, Int32, ListAtomic, ListMap, StringEnum, StringMap, Quantity, Time } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
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

// What `kubectl explain` says of each field, in this project's words.
const NOT_REPORTED = "Not reported by this server's node agent.";

describeFields(
  ContainerStateSchema,
  {
    waiting: 'The container does not run yet, or waits to run again.',
    'waiting.reason':
      'Why it waits: ContainerCreating, PodInitializing, ErrImagePull, ImagePullBackOff, CrashLoopBackOff, CreateContainerConfigError and the like.',
    'waiting.message': 'More on why it waits.',
    running: 'The container runs.',
    'running.startedAt': 'When it last started.',
    terminated: 'The container ran and ended.',
    'terminated.exitCode': 'Its exit status.',
    'terminated.signal': 'The signal that ended it, if one did.',
    'terminated.reason': 'Why it ended: Completed, Error, OOMKilled and the like.',
    'terminated.message': 'Its termination message, or more on why it ended.',
    'terminated.startedAt': 'When it started.',
    'terminated.finishedAt': 'When it ended.',
    'terminated.containerID': "The runtime's ID of the container that ended, as `<runtime>://<id>`.",
  },
  'What a container is doing: one of waiting, running or terminated; none at all means waiting.',
);

describeFields(
  ContainerStatusSchema,
  {
    name: 'The name of the container, as in the spec.',
    state: 'What the container is doing now.',
    lastState: 'How the run before the current one ended, once the container has been restarted.',
    ready: 'Whether the container passes its readiness probe (or runs, when it has none).',
    restartCount: 'How many times the container has been restarted.',
    image: 'The image the container runs, as the runtime names it.',
    imageID: 'The ID of that image, with its digest.',
    containerID: "The runtime's ID of the container, as `<runtime>://<id>`.",
    started: 'Whether the container has started: its postStart hook done and its startup probe passed. False again after a restart.',
    allocatedResources: `The resources the node has set aside for the container. ${NOT_REPORTED}`,
    resources: `The requests and limits the runtime applies to the container now. ${NOT_REPORTED}`,
    volumeMounts: `The volumes mounted into the container, as the runtime reports them. ${NOT_REPORTED}`,
    user: `The user and groups the container's first process runs as. ${NOT_REPORTED}`,
    stopSignal: `The signal that stops the container. ${NOT_REPORTED}`,
  },
  'What the node agent last observed of one container of a pod.',
);

describeFields(
  PodConditionSchema,
  {
    ...conditionFieldDescriptions(
      PodConditionSchema,
      "PodScheduled, Initialized (init containers done), ContainersReady, Ready (can serve), DisruptionTarget (about to be removed), or the type of one of the pod's readiness gates.",
    ),
    observedGeneration: `The pod's metadata.generation the condition was worked out for. ${NOT_REPORTED}`,
  },
  'One aspect of the state of a pod.',
);

describeFields(
  PodStatusSchema,
  {
    phase:
      'Where the pod is in its life: Pending (accepted, not every container started, images included), Running (on a node, a container running or restarting), Succeeded (every container ended well, none restarts), Failed (every container ended, one failed) or Unknown.',
    conditions: "PodScheduled, Initialized, ContainersReady, Ready and the pod's readiness gates, each with why.",
    message: 'Why the pod is in its phase, in words for people.',
    reason: 'Why the pod is in its phase, as a CamelCase word such as Evicted.',
    nominatedNodeName:
      "The node a preemption made room on for the pod, which is not bound there yet. This server's scheduler preempts no pod and leaves it empty.",
    hostIP: 'The primary IP of the node the pod runs on; empty until the pod is placed.',
    hostIPs: 'The IPs of that node, one per address family; the first is hostIP.',
    'hostIPs.ip': 'An IP of the node.',
    podIP: "The pod's primary IP; empty until one is given.",
    podIPs: "The pod's IPs, at most one per address family; the first is podIP.",
    'podIPs.ip': 'An IP of the pod.',
    startTime: 'When the node agent took the pod on, before its images were pulled.',
    initContainerStatuses: 'One entry per init container, as the node agent last saw it.',
    containerStatuses: 'One entry per app container, as the node agent last saw it.',
    ephemeralContainerStatuses: 'One entry per ephemeral container, as the node agent last saw it.',
    qosClass:
      "The pod's quality of service, set from its containers' requests and limits when it is created: Guaranteed (equal requests and limits of CPU and memory in every container), Burstable (some requests) or BestEffort (none). It ranks the pods a short node evicts first.",
    resize: `Where a change of the containers' resources stands: Proposed, InProgress, Deferred or Infeasible. ${NOT_REPORTED}`,
    resourceClaimStatuses: 'The ResourceClaims made for the pod, one per entry of its resourceClaims.',
    observedGeneration: `The pod's metadata.generation the node agent last acted on. ${NOT_REPORTED}`,
  },
  'What the node agent and the control plane last observed of a pod.',
);

(PodSchema as { description?: string }).description =
  'One or more containers run together on one node, sharing a network and volumes: the smallest thing the cluster runs.';

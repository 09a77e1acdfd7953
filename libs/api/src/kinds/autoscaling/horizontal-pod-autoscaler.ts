import { Type, type Static } from '@sinclair/typebox';
import { ConditionStatuses } from '../../meta/condition';
import { LabelSelectorSchema } from '../../meta/label-selector';
import type { List } from '../../meta/list';
import { objectMetaSchema } from '../../meta/object-meta';
import { Described, Int32, Int64, ListAtomic, ListMap, Quantity, StringEnum, Time } from '../../schema/builders';

/** autoscaling/v2, the version HorizontalPodAutoscalers are stored in. */

export const MetricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'] as const;
export const MetricTargetTypes = ['AverageValue', 'Utilization', 'Value'] as const;
export const ScalingPolicySelects = ['Disabled', 'Max', 'Min'] as const;
export const ScalingPolicyTypes = ['Percent', 'Pods'] as const;
export type MetricSourceType = (typeof MetricSourceTypes)[number];
export type ScalingPolicySelect = (typeof ScalingPolicySelects)[number];

export const CrossVersionObjectReferenceSchema = Described(
  Type.Object({
    kind: Type.String(),
    name: Type.String(),
    apiVersion: Type.Optional(Type.String()),
  }),
  {
    kind: 'The kind of the object scaled (Deployment, StatefulSet, a custom kind with a scale subresource).',
    name: 'Its name, in the autoscaler’s namespace.',
    apiVersion: 'Its API version (apps/v1).',
  },
  'An object named by kind, name and API version.',
);

export const MetricIdentifierSchema = Described(
  Type.Object({
    name: Type.String(),
    selector: Type.Optional(LabelSelectorSchema),
  }),
  {
    name: 'The name of the metric.',
    selector: 'Labels of the metric series to read, for metrics that have several; all of them when left out.',
  },
  'A metric named, with an optional selector of its series.',
);

export const MetricTargetSchema = Described(
  Type.Object({
    type: Type.String(),
    value: Type.Optional(Quantity()),
    averageValue: Type.Optional(Quantity()),
    averageUtilization: Type.Optional(Int32()),
  }),
  {
    type: 'What the target is: Utilization, Value or AverageValue.',
    value: 'The value of the metric aimed at (type Value).',
    averageValue: 'The value per pod aimed at, averaged over the pods (type AverageValue).',
    averageUtilization:
      'The usage aimed at as a percentage of what the pods request, averaged over them (type Utilization; Resource and ContainerResource metrics only).',
  },
  'The value, average value or average utilization a metric should have.',
);

export const ResourceMetricSourceSchema = Described(
  Type.Object({ name: Type.String(), target: MetricTargetSchema }),
  {
    name: 'The resource (cpu, memory) whose usage is read from the metrics API.',
    target: 'What the usage should be.',
  },
  'A resource metric of the pods scaled (cpu, memory), summed over each pod’s containers, as the metrics API gives it.',
);

export const ContainerResourceMetricSourceSchema = Described(
  Type.Object({ name: Type.String(), target: MetricTargetSchema, container: Type.String() }),
  {
    name: 'The resource (cpu, memory) whose usage is read from the metrics API.',
    target: 'What the usage should be.',
    container: 'The container of each pod whose usage counts.',
  },
  'A resource metric of one container of each pod scaled.',
);

export const PodsMetricSourceSchema = Described(
  Type.Object({ metric: MetricIdentifierSchema, target: MetricTargetSchema }),
  { metric: 'The metric, per pod.', target: 'Its average over the pods aimed at (AverageValue only).' },
  'A metric each pod scaled reports (custom metrics API). Not read by this control plane’s autoscaler.',
);

export const ObjectMetricSourceSchema = Described(
  Type.Object({ describedObject: CrossVersionObjectReferenceSchema, target: MetricTargetSchema, metric: MetricIdentifierSchema }),
  {
    describedObject: 'The object the metric describes.',
    target: 'Its value (or value per pod) aimed at.',
    metric: 'The metric.',
  },
  'A metric of another object (custom metrics API). Not read by this control plane’s autoscaler.',
);

export const ExternalMetricSourceSchema = Described(
  Type.Object({ metric: MetricIdentifierSchema, target: MetricTargetSchema }),
  { metric: 'The metric.', target: 'Its value (or value per pod) aimed at.' },
  'A metric from outside the cluster (external metrics API). Not read by this control plane’s autoscaler.',
);

export const MetricSpecSchema = Described(
  Type.Object({
    type: Type.String(),
    object: Type.Optional(ObjectMetricSourceSchema),
    pods: Type.Optional(PodsMetricSourceSchema),
    resource: Type.Optional(ResourceMetricSourceSchema),
    containerResource: Type.Optional(ContainerResourceMetricSourceSchema),
    external: Type.Optional(ExternalMetricSourceSchema),
  }),
  {
    type: 'Which source the metric comes from: Resource, ContainerResource, Pods, Object or External; the field of that name says more.',
    object: 'A metric of another object (type Object).',
    pods: 'A metric of each pod (type Pods).',
    resource: 'A resource metric of the pods (type Resource).',
    containerResource: 'A resource metric of one container of the pods (type ContainerResource).',
    external: 'A metric from outside the cluster (type External).',
  },
  'One metric the autoscaler scales on; the replica count asked for is the largest any metric proposes.',
);

export const HPAScalingPolicySchema = Described(
  Type.Object({ type: Type.String(), value: Int32(), periodSeconds: Int32() }),
  {
    type: 'Pods (a number of pods) or Percent (a percentage of the replicas at the start of the period).',
    value: 'How many pods, or what percentage, may be added or removed within the period.',
    periodSeconds: 'The period over which the change is counted, from 1 to 1800 seconds.',
  },
  'A limit on how fast the replica count may change.',
);

export const HPAScalingRulesSchema = Described(
  Type.Object({
    stabilizationWindowSeconds: Type.Optional(Int32()),
    selectPolicy: Type.Optional(Type.String()),
    policies: Type.Optional(ListAtomic(HPAScalingPolicySchema)),
  }),
  {
    stabilizationWindowSeconds:
      'How many seconds of past recommendations are looked back on: scaling up takes the lowest of them, scaling down the highest (0 to 3600). Scaling up defaults to 0; scaling down to the controller manager’s --horizontal-pod-autoscaler-downscale-stabilization (300 s).',
    selectPolicy: 'Which policy applies when several do: Max (the largest change, the default), Min (the smallest) or Disabled (no scaling this way).',
    policies: 'The limits on the change; at least one.',
  },
  'How the replica count may change in one direction.',
);

export const HorizontalPodAutoscalerBehaviorSchema = Described(
  Type.Object({ scaleUp: Type.Optional(HPAScalingRulesSchema), scaleDown: Type.Optional(HPAScalingRulesSchema) }),
  {
    scaleUp: 'How fast replicas may be added: by default no stabilization window and, each 15 seconds, the larger of 4 pods and 100% of the replicas.',
    scaleDown: 'How fast replicas may be removed: by default a 300 s stabilization window and up to 100% of the replicas each 15 seconds.',
  },
  'How fast the autoscaler scales up and down.',
);

export const HorizontalPodAutoscalerSpecSchema = Described(
  Type.Object({
    scaleTargetRef: CrossVersionObjectReferenceSchema,
    minReplicas: Type.Optional(Int32({ default: 1 })),
    maxReplicas: Int32(),
    metrics: Type.Optional(ListAtomic(MetricSpecSchema)),
    behavior: Type.Optional(HorizontalPodAutoscalerBehaviorSchema),
  }),
  {
    scaleTargetRef: 'The object scaled, through its scale subresource.',
    minReplicas: 'The fewest replicas the autoscaler scales down to; 1 by default.',
    maxReplicas: 'The most replicas the autoscaler scales up to; not fewer than minReplicas.',
    metrics: 'The metrics scaled on; the replica count is the largest any of them proposes. 80% of the CPU requested by default.',
    behavior:
      'How fast the autoscaler scales up and down; left out, scaling down looks back over --horizontal-pod-autoscaler-downscale-stabilization and scaling up at most doubles the replicas (or adds 4).',
  },
  'What the autoscaler scales, between which bounds, on which metrics.',
);

export const MetricValueStatusSchema = Described(
  Type.Object({
    value: Type.Optional(Quantity()),
    averageValue: Type.Optional(Quantity()),
    averageUtilization: Type.Optional(Int32()),
  }),
  {
    value: 'The value of the metric.',
    averageValue: 'Its value per pod, averaged over the pods.',
    averageUtilization: 'The usage as a percentage of what the pods request, averaged over them.',
  },
  'The current value of a metric.',
);

export const ResourceMetricStatusSchema = Described(
  Type.Object({ name: Type.String(), current: MetricValueStatusSchema }),
  { name: 'The resource.', current: 'Its current usage.' },
  'The current usage of a resource of the pods scaled.',
);

export const ContainerResourceMetricStatusSchema = Described(
  Type.Object({ name: Type.String(), current: MetricValueStatusSchema, container: Type.String() }),
  { name: 'The resource.', current: 'Its current usage.', container: 'The container of each pod whose usage counts.' },
  'The current usage of a resource of one container of the pods scaled.',
);

export const PodsMetricStatusSchema = Described(
  Type.Object({ metric: MetricIdentifierSchema, current: MetricValueStatusSchema }),
  { metric: 'The metric.', current: 'Its current value.' },
  'The current value of a metric of each pod.',
);

export const ObjectMetricStatusSchema = Described(
  Type.Object({ metric: MetricIdentifierSchema, current: MetricValueStatusSchema, describedObject: CrossVersionObjectReferenceSchema }),
  { metric: 'The metric.', current: 'Its current value.', describedObject: 'The object the metric describes.' },
  'The current value of a metric of another object.',
);

export const ExternalMetricStatusSchema = Described(
  Type.Object({ metric: MetricIdentifierSchema, current: MetricValueStatusSchema }),
  { metric: 'The metric.', current: 'Its current value.' },
  'The current value of a metric from outside the cluster.',
);

export const MetricStatusSchema = Described(
  Type.Object({
    type: Type.String(),
    object: Type.Optional(ObjectMetricStatusSchema),
    pods: Type.Optional(PodsMetricStatusSchema),
    resource: Type.Optional(ResourceMetricStatusSchema),
    containerResource: Type.Optional(ContainerResourceMetricStatusSchema),
    external: Type.Optional(ExternalMetricStatusSchema),
  }),
  {
    type: 'The source of the metric, as in the spec.',
    object: 'A metric of another object.',
    pods: 'A metric of each pod.',
    resource: 'A resource metric of the pods.',
    containerResource: 'A resource metric of one container of the pods.',
    external: 'A metric from outside the cluster.',
  },
  'The last value read of one metric.',
);

export const HorizontalPodAutoscalerConditionSchema = Described(
  Type.Object({
    type: Type.String(),
    status: StringEnum(ConditionStatuses),
    lastTransitionTime: Type.Optional(Time()),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
  }),
  {
    type: 'AbleToScale (the target’s scale can be read and written), ScalingActive (a replica count can be worked out from the metrics) or ScalingLimited (the count wanted is out of bounds or rate).',
    status: 'True, False or Unknown.',
    lastTransitionTime: 'When status last changed.',
    reason: 'Why, in one CamelCase word.',
    message: 'Why, in words.',
  },
  'One aspect of the autoscaler’s state.',
);

export const HorizontalPodAutoscalerStatusSchema = Described(
  Type.Object({
    observedGeneration: Type.Optional(Int64()),
    lastScaleTime: Type.Optional(Time()),
    currentReplicas: Type.Optional(Int32()),
    desiredReplicas: Int32(),
    currentMetrics: Type.Optional(ListAtomic(MetricStatusSchema)),
    conditions: Type.Optional(ListMap(HorizontalPodAutoscalerConditionSchema, ['type'])),
  }),
  {
    observedGeneration: 'The generation of the autoscaler last acted on.',
    lastScaleTime: 'When the autoscaler last changed the replica count.',
    currentReplicas: 'How many replicas the target had when last read.',
    desiredReplicas: 'How many replicas the autoscaler last asked for.',
    currentMetrics: 'The last values read of the metrics, in the order of spec.metrics.',
    conditions: 'AbleToScale, ScalingActive and ScalingLimited, with why.',
  },
  'What the autoscaler last saw and did.',
);

export const HorizontalPodAutoscalerSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Optional(HorizontalPodAutoscalerSpecSchema),
  status: Type.Optional(HorizontalPodAutoscalerStatusSchema),
});
(HorizontalPodAutoscalerSchema as { description?: string }).description =
  'Scales a Deployment, ReplicaSet, StatefulSet or any object with a scale subresource between a minimum and a maximum replica count, on the CPU or memory its pods use.';

export type HorizontalPodAutoscaler = Static<typeof HorizontalPodAutoscalerSchema>;
export type HorizontalPodAutoscalerList = List<HorizontalPodAutoscaler>;
export type HorizontalPodAutoscalerSpec = Static<typeof HorizontalPodAutoscalerSpecSchema>;
export type HorizontalPodAutoscalerStatus = Static<typeof HorizontalPodAutoscalerStatusSchema>;
export type HorizontalPodAutoscalerBehavior = Static<typeof HorizontalPodAutoscalerBehaviorSchema>;
export type HorizontalPodAutoscalerCondition = Static<typeof HorizontalPodAutoscalerConditionSchema>;
export type HPAScalingRules = Static<typeof HPAScalingRulesSchema>;
export type HPAScalingPolicy = Static<typeof HPAScalingPolicySchema>;
export type MetricSpec = Static<typeof MetricSpecSchema>;
export type MetricStatus = Static<typeof MetricStatusSchema>;
export type MetricTarget = Static<typeof MetricTargetSchema>;
export type MetricValueStatus = Static<typeof MetricValueStatusSchema>;
export type CrossVersionObjectReference = Static<typeof CrossVersionObjectReferenceSchema>;

/** The conditions the horizontal-pod-autoscaler controller keeps. */
export const HPA_ABLE_TO_SCALE = 'AbleToScale';
export const HPA_SCALING_ACTIVE = 'ScalingActive';
export const HPA_SCALING_LIMITED = 'ScalingLimited';

/** Kubernetes' DefaultCPUUtilization: the target of an autoscaler that names no metric. */
export const DEFAULT_CPU_UTILIZATION = 80;

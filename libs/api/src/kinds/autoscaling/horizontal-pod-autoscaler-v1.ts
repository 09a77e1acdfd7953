import { Type, type Static } from '@sinclair/typebox';
import type { List } from '../../meta/list';
import { objectMetaSchema } from '../../meta/object-meta';
import { Described, Int32, Int64, Time } from '../../schema/builders';

/**
 * autoscaling/v1: CPU utilization only. What v2 holds beyond it (other metrics, behavior, current
 * metrics, conditions) travels in annotations of the v1 object, as Kubernetes converts it.
 */

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

export const HorizontalPodAutoscalerSpecSchema = Described(
  Type.Object({
    scaleTargetRef: CrossVersionObjectReferenceSchema,
    minReplicas: Type.Optional(Int32({ default: 1 })),
    maxReplicas: Int32(),
    targetCPUUtilizationPercentage: Type.Optional(Int32()),
  }),
  {
    scaleTargetRef: 'The object scaled, through its scale subresource.',
    minReplicas: 'The fewest replicas the autoscaler scales down to; 1 by default.',
    maxReplicas: 'The most replicas the autoscaler scales up to; not fewer than minReplicas.',
    targetCPUUtilizationPercentage: 'The CPU the pods should use, as a percentage of what they request, averaged over them; 80 when left out.',
  },
  'What the autoscaler scales, between which bounds, on which CPU utilization.',
);

export const HorizontalPodAutoscalerStatusSchema = Described(
  Type.Object({
    observedGeneration: Type.Optional(Int64()),
    lastScaleTime: Type.Optional(Time()),
    currentReplicas: Int32(),
    desiredReplicas: Int32(),
    currentCPUUtilizationPercentage: Type.Optional(Int32()),
  }),
  {
    observedGeneration: 'The generation of the autoscaler last acted on.',
    lastScaleTime: 'When the autoscaler last changed the replica count.',
    currentReplicas: 'How many replicas the target had when last read.',
    desiredReplicas: 'How many replicas the autoscaler last asked for.',
    currentCPUUtilizationPercentage: 'The CPU the pods use now, as a percentage of what they request, averaged over them.',
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
  'Scales a Deployment, ReplicaSet, StatefulSet or any object with a scale subresource between a minimum and a maximum replica count, on the CPU its pods use (autoscaling/v2 has every metric).';

export type HorizontalPodAutoscalerV1 = Static<typeof HorizontalPodAutoscalerSchema>;
export type HorizontalPodAutoscalerV1List = List<HorizontalPodAutoscalerV1>;

/** Where autoscaling/v1 keeps what only v2 has (Kubernetes' annotation names). */
export const HPA_METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const HPA_METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const HPA_CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const HPA_BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';

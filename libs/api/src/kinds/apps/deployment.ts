import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, IntOrString, ListMap, StringEnum } from '../../schema/builders';
import { kindConditionSchema, OptionalTime } from '../../meta/condition';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { PERCENT_PATTERN } from '../../meta/names';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PodTemplateSpecSchema } from '../core/pod-spec';

export const DeploymentStrategyTypes = ['RollingUpdate', 'Recreate'] as const;

/** An absolute number (integers) or a percentage (strings); each keyword only constrains its own type. */
const IntOrPercent = () => IntOrString({ minimum: 0, pattern: PERCENT_PATTERN });

export const DeploymentStrategySchema = Type.Object(
  {
    type: Type.Optional(StringEnum(DeploymentStrategyTypes, { default: 'RollingUpdate' })),
    /** Defaulted to 25%/25% by a hook, only when the type is RollingUpdate. */
    rollingUpdate: Type.Optional(Type.Object({ maxUnavailable: Type.Optional(IntOrPercent()), maxSurge: Type.Optional(IntOrPercent()) })),
  },
  { default: {}, 'x-svc-patch-strategy': 'retainKeys' },
);

export const DeploymentSpecSchema = Type.Object({
  replicas: Type.Optional(Int32({ minimum: 0, default: 1 })),
  selector: LabelSelectorSchema,
  template: PodTemplateSpecSchema,
  strategy: Type.Optional(DeploymentStrategySchema),
  minReadySeconds: Type.Optional(Int32({ minimum: 0 })),
  revisionHistoryLimit: Type.Optional(Int32({ minimum: 0, default: 10 })),
  paused: Type.Optional(Type.Boolean()),
  progressDeadlineSeconds: Type.Optional(Int32({ minimum: 0, default: 600 })),
});

export const DeploymentConditionSchema = kindConditionSchema({
  lastUpdateTime: OptionalTime(),
  lastTransitionTime: OptionalTime(),
});

export const DeploymentStatusSchema = Type.Object({
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  replicas: Type.Optional(Int32({ minimum: 0 })),
  updatedReplicas: Type.Optional(Int32({ minimum: 0 })),
  readyReplicas: Type.Optional(Int32({ minimum: 0 })),
  availableReplicas: Type.Optional(Int32({ minimum: 0 })),
  unavailableReplicas: Type.Optional(Int32({ minimum: 0 })),
  terminatingReplicas: Type.Optional(Int32({ minimum: 0 })),
  conditions: Type.Optional(ListMap(DeploymentConditionSchema, ['type'])),
  collisionCount: Type.Optional(Int32({ minimum: 0 })),
});

export const DeploymentSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: DeploymentSpecSchema,
  status: Type.Optional(DeploymentStatusSchema),
});
export type Deployment = Static<typeof DeploymentSchema>;
export type DeploymentList = List<Deployment>;

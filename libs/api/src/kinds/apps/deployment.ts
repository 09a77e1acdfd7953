import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Int64, IntOrString, ListMap, StringEnum } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { PERCENT_PATTERN } from '../../meta/names';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PodTemplateSpecSchema } from '../core/pod-spec';

/** In the order Kubernetes lists them when a strategy type is not supported. */
export const DeploymentStrategyTypes = ['Recreate', 'RollingUpdate'] as const;

/** An absolute number (integers) or a percentage (strings); each keyword only constrains its own type. */
const IntOrPercent = () => IntOrString({ minimum: 0, pattern: PERCENT_PATTERN });

export const RollingUpdateDeploymentSchema = Type.Object(
  { maxUnavailable: Type.Optional(IntOrPercent()), maxSurge: Type.Optional(IntOrPercent()) },
  { description: 'How far a rolling update may go below and above the desired number of pods while it replaces them.' },
);

export const DeploymentStrategySchema = Type.Object(
  {
    type: Type.Optional(StringEnum(DeploymentStrategyTypes, { default: 'RollingUpdate' })),
    /** Defaulted to 25%/25% by a hook, only when the type is RollingUpdate. */
    rollingUpdate: Type.Optional(RollingUpdateDeploymentSchema),
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(DeploymentStrategySchema, {
  type: 'RollingUpdate replaces pods a few at a time; Recreate stops them all before starting the new ones. RollingUpdate by default.',
  rollingUpdate: 'How fast a RollingUpdate goes; only with that type.',
  'rollingUpdate.maxUnavailable':
    'How many pods may be missing from the desired count during the update, a number or a percentage rounded down; 25% by default.',
  'rollingUpdate.maxSurge': 'How many pods may run beyond the desired count during the update, a number or a percentage rounded up; 25% by default.',
});
(DeploymentStrategySchema as { description?: string }).description = 'How a Deployment replaces old pods with new ones.';
describeFields(DeploymentSpecSchema, {
  replicas: 'How many pods to run; 1 by default. Left out, it stays as a HorizontalPodAutoscaler or `kubectl scale` set it.',
  selector: "Which pods belong to the Deployment; it must match the template's labels and cannot change.",
  template: 'The pods the Deployment runs. A change here starts a rollout.',
  strategy: 'How old pods are replaced by new ones.',
  minReadySeconds: 'How long a new pod must be ready, with no container crashing, before it counts as available; 0 by default.',
  revisionHistoryLimit: 'How many old ReplicaSets are kept for rollbacks; 10 by default.',
  paused: 'While true, changes to the template start no rollout.',
  progressDeadlineSeconds:
    'How long a rollout may go without progress before the Deployment reports it failed (Progressing=False, ProgressDeadlineExceeded); 600 by default.',
});
(DeploymentSpecSchema as { description?: string }).description = 'What a Deployment runs and how it rolls out changes.';
describeFields(DeploymentStatusSchema, {
  observedGeneration: 'The generation of the Deployment the controller last acted on.',
  replicas: "How many pods the Deployment's ReplicaSets run, not counting those terminating.",
  updatedReplicas: 'How many of them run the current template.',
  readyReplicas: 'How many of them are ready.',
  availableReplicas: 'How many of them have been ready for minReadySeconds.',
  unavailableReplicas: 'How many more pods are needed to have the desired number available.',
  terminatingReplicas: 'How many pods of the Deployment are terminating.',
  conditions: 'Available and Progressing, with why.',
  collisionCount: 'How many times the hash naming a new ReplicaSet collided with an existing one; it salts the next hash.',
});
(DeploymentStatusSchema as { description?: string }).description = 'What the deployment controller last observed of a Deployment.';
(DeploymentSchema as { description?: string }).description = 'Runs a set of identical pods through ReplicaSets and rolls out changes to them step by step.';

describeFields(
  DeploymentConditionSchema,
  conditionFieldDescriptions(
    DeploymentConditionSchema,
    'Available (enough pods are available), Progressing (a rollout moves on, or is done) or ReplicaFailure (pods could not be made or deleted).',
  ),
  'One aspect of the state of a Deployment.',
);

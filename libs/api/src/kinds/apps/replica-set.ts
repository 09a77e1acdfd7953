import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Int64, ListMap } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PodTemplateSpecSchema } from '../core/pod-spec';

export const ReplicaSetSpecSchema = Type.Object({
  replicas: Type.Optional(Int32({ minimum: 0, default: 1 })),
  minReadySeconds: Type.Optional(Int32({ minimum: 0 })),
  selector: LabelSelectorSchema,
  template: PodTemplateSpecSchema,
});

export const ReplicaSetConditionSchema = kindConditionSchema({ lastTransitionTime: OptionalTime() });

export const ReplicaSetStatusSchema = Type.Object({
  replicas: Type.Optional(Int32({ minimum: 0 })),
  fullyLabeledReplicas: Type.Optional(Int32({ minimum: 0 })),
  readyReplicas: Type.Optional(Int32({ minimum: 0 })),
  availableReplicas: Type.Optional(Int32({ minimum: 0 })),
  terminatingReplicas: Type.Optional(Int32({ minimum: 0 })),
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  conditions: Type.Optional(ListMap(ReplicaSetConditionSchema, ['type'])),
});

export const ReplicaSetSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: ReplicaSetSpecSchema,
  status: Type.Optional(ReplicaSetStatusSchema),
});
export type ReplicaSet = Static<typeof ReplicaSetSchema>;
export type ReplicaSetList = List<ReplicaSet>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  ReplicaSetSpecSchema,
  {
    replicas: 'How many pods to run; 1 by default.',
    minReadySeconds: 'How long a new pod must be ready, with no container crashing, before it counts as available; 0 by default.',
    selector: "Which pods belong to the ReplicaSet; it must match the template's labels and cannot change.",
    template: 'The pods it makes when too few run; a change here reaches only the pods made after it.',
  },
  'What a ReplicaSet runs, and how many.',
);
describeFields(
  ReplicaSetStatusSchema,
  {
    replicas: 'How many pods it has, not counting those terminating.',
    fullyLabeledReplicas: 'How many of them carry every label of the template.',
    readyReplicas: 'How many of them are ready.',
    availableReplicas: 'How many of them have been ready for minReadySeconds.',
    terminatingReplicas: 'How many of its pods are terminating: deleted, not yet gone.',
    observedGeneration: 'The generation of the ReplicaSet the replica set controller last acted on.',
    conditions: 'ReplicaFailure, when it fails to make or delete pods.',
  },
  'What the replica set controller last observed of a ReplicaSet.',
);
describeFields(
  ReplicaSetConditionSchema,
  conditionFieldDescriptions(ReplicaSetConditionSchema, 'ReplicaFailure: pods could not be made or deleted.'),
  'One aspect of the state of a ReplicaSet.',
);
(ReplicaSetSchema as { description?: string }).description =
  'Keeps a number of identical pods running, making and deleting them as needed; most are made and managed by a Deployment.';

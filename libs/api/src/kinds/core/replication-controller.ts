import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Int64, ListMap, StringStringMap } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PodTemplateSpecSchema } from './pod-spec';

/** core/v1 ReplicationController: the selector is a plain map of labels, defaulted from the template's. */
export const ReplicationControllerSpecSchema = Type.Object({
  replicas: Type.Optional(Int32({ minimum: 0, default: 1 })),
  minReadySeconds: Type.Optional(Int32({ minimum: 0 })),
  selector: Type.Optional(StringStringMap({ 'x-svc-map-type': 'atomic' })),
  template: Type.Optional(PodTemplateSpecSchema),
});

export const ReplicationControllerConditionSchema = kindConditionSchema({ lastTransitionTime: OptionalTime() });

export const ReplicationControllerStatusSchema = Type.Object({
  replicas: Type.Optional(Int32({ minimum: 0 })),
  fullyLabeledReplicas: Type.Optional(Int32({ minimum: 0 })),
  readyReplicas: Type.Optional(Int32({ minimum: 0 })),
  availableReplicas: Type.Optional(Int32({ minimum: 0 })),
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  conditions: Type.Optional(ListMap(ReplicationControllerConditionSchema, ['type'])),
});

export const ReplicationControllerSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Optional(Type.Object(ReplicationControllerSpecSchema.properties, { default: {} })),
  status: Type.Optional(ReplicationControllerStatusSchema),
});
export type ReplicationController = Static<typeof ReplicationControllerSchema>;
export type ReplicationControllerList = List<ReplicationController>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(ReplicationControllerSpecSchema, {
  replicas: 'How many pods to run; 1 by default.',
  minReadySeconds: 'How long a new pod must be ready, with no container crashing, before it counts as available; 0 by default.',
  selector: "Labels a pod must carry to belong to the controller; the template's labels by default, and it must match them.",
  template: 'The pods it makes when too few run; a change here reaches only the pods made after it.',
});
describeFields(ReplicationControllerStatusSchema, {
  replicas: 'How many pods it has.',
  fullyLabeledReplicas: 'How many of them carry every label of the template.',
  readyReplicas: 'How many of them are ready.',
  availableReplicas: 'How many of them have been ready for minReadySeconds.',
  observedGeneration: 'The generation of the controller the replication manager last acted on.',
  conditions: 'ReplicaFailure, when it fails to make or delete pods.',
});
describeFields(
  ReplicationControllerConditionSchema,
  conditionFieldDescriptions(ReplicationControllerConditionSchema, 'ReplicaFailure: pods could not be made or deleted.'),
);
(ReplicationControllerSchema as { description?: string }).description =
  'Keeps a number of pods running: the older form of ReplicaSet, whose selector is a plain map of labels. Use a Deployment for new work.';

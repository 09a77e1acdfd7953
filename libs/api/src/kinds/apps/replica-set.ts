import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, ListMap } from '../../schema/builders';
import { kindConditionSchema, OptionalTime } from '../../meta/condition';
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

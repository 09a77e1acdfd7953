import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, ListMap, StringStringMap } from '../../schema/builders';
import { kindConditionSchema, OptionalTime } from '../../meta/condition';
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

import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32 } from '../schema/builders';
import { ObjectMetaSchema } from './object-meta';

export const SCALE_API_VERSION = 'autoscaling/v1';

/** `autoscaling/v1` Scale, served by the `scale` subresource. */
export const ScaleSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: Type.Optional(Type.Object({ replicas: Type.Optional(Int32({ minimum: 0 })) })),
  status: Type.Optional(
    Type.Object({
      replicas: Int32({ minimum: 0 }),
      /** Label query over the pods, in the string form of a label selector. */
      selector: Type.Optional(Type.String()),
    }),
  ),
});
export type Scale = Static<typeof ScaleSchema>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(ScaleSchema, {
  spec: 'The desired replica count.',
  'spec.replicas': 'How many replicas the resource should have; writing it scales the resource.',
  status: 'The replica count as last observed.',
  'status.replicas': 'How many replicas the resource has now.',
  'status.selector': 'The label selector of the pods counted, written as a string (`app=web`); autoscalers read it.',
});

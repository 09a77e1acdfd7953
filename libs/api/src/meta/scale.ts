import { Type, type Static } from '@sinclair/typebox';
import { Int32 } from '../schema/builders';
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

import { Type, type Static } from '@sinclair/typebox';
import { ListAtomic } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ResourceListSchema } from './container';

/** The kinds of object a LimitRange item bounds (Kubernetes' LimitType). */
export const LimitTypes = ['Pod', 'Container', 'PersistentVolumeClaim'] as const;

export const LimitRangeItemSchema = Type.Object({
  type: Type.String({ description: 'What the item bounds: Container, Pod or PersistentVolumeClaim.' }),
  max: Type.Optional(ResourceListSchema),
  min: Type.Optional(ResourceListSchema),
  default: Type.Optional(ResourceListSchema),
  defaultRequest: Type.Optional(ResourceListSchema),
  maxLimitRequestRatio: Type.Optional(ResourceListSchema),
});

export const LimitRangeSpecSchema = Type.Object({
  limits: ListAtomic(LimitRangeItemSchema, { description: 'The bounds, at most one item per type.' }),
});

export const LimitRangeSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'v1.' })),
    kind: Type.Optional(Type.String({ description: 'LimitRange.' })),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: Type.Optional(LimitRangeSpecSchema),
  },
  { description: "The bounds and defaults of the resources a namespace's containers, pods and claims may ask for." },
);
export type LimitRange = Static<typeof LimitRangeSchema>;
export type LimitRangeList = List<LimitRange>;
export type LimitRangeItem = Static<typeof LimitRangeItemSchema>;

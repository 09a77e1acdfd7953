import { Type, type Static } from '@sinclair/typebox';
import { DescribedAs, ListAtomic } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ResourceListSchema } from './container';

/** The kinds of object a LimitRange item bounds (Kubernetes' LimitType). */
export const LimitTypes = ['Pod', 'Container', 'PersistentVolumeClaim'] as const;

const list = (description: string) => Type.Optional(DescribedAs(ResourceListSchema, description));

export const LimitRangeItemSchema = Type.Object(
  {
    type: Type.String({ description: 'What the item bounds: Container, Pod or PersistentVolumeClaim.' }),
    max: list('The most of each resource an object of the type may be limited to (and request).'),
    min: list('The least of each resource an object of the type must request (and be limited to).'),
    default: list('The limits a container that states none is given (Container only); defaults to max.'),
    defaultRequest: list('The requests a container that states none is given (Container only); defaults to the default limit, else min.'),
    maxLimitRequestRatio: list('The most a limit may be of its request, as a multiple; both must then be stated and non-zero.'),
  },
  { description: 'The bounds and defaults of one type of object.' },
);

export const LimitRangeSpecSchema = Type.Object(
  {
    limits: ListAtomic(LimitRangeItemSchema, { description: 'The bounds, at most one item per type.' }),
  },
  { description: 'The bounds and defaults the LimitRanger admission plugin applies in the namespace.' },
);

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

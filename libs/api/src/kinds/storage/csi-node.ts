import { Type, type Static } from '@sinclair/typebox';
import { Described, Int32, ListMap, ListAtomic } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

export const VolumeNodeResourcesSchema = Described(
  Type.Object({ count: Type.Optional(Int32()) }),
  { count: 'The most volumes of the driver the node may have; no limit when absent.' },
  'What a node can take of a driver.',
);

export const CSINodeDriverSchema = Described(
  Type.Object({
    name: Type.String(),
    nodeID: Type.String(),
    topologyKeys: Type.Optional(ListAtomic(Type.String())),
    allocatable: Type.Optional(VolumeNodeResourcesSchema),
  }),
  {
    name: 'The name of the driver.',
    nodeID: 'What the driver calls the node.',
    topologyKeys: 'The topology labels the driver sets on the node.',
    allocatable: 'How many volumes of the driver the node can take.',
  },
  'A CSI driver installed on a node.',
);

export const CSINodeSpecSchema = Described(
  Type.Object({ drivers: ListMap(CSINodeDriverSchema, ['name']) }),
  { drivers: 'The drivers installed on the node.' },
  'The CSI drivers of a node.',
);

export const CSINodeSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: CSINodeSpecSchema,
  }),
  {
    apiVersion: 'storage.k8s.io/v1.',
    kind: 'CSINode.',
    metadata: 'The name of the node; the Node owns it.',
    spec: 'The CSI drivers of the node.',
  },
  'The CSI drivers installed on a node, written by its node agent.',
);
export type CSINode = Static<typeof CSINodeSchema>;
export type CSINodeList = List<CSINode>;

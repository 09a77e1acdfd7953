import { Type, type Static } from '@sinclair/typebox';
import { Described, Quantity } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { LabelSelectorSchema } from '../../meta/label-selector';
import type { List } from '../../meta/list';

export const CSIStorageCapacitySchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    nodeTopology: Type.Optional(LabelSelectorSchema),
    storageClassName: Type.String(),
    capacity: Type.Optional(Quantity()),
    maximumVolumeSize: Type.Optional(Quantity()),
  }),
  {
    apiVersion: 'storage.k8s.io/v1.',
    kind: 'CSIStorageCapacity.',
    metadata: 'The name (any), and the namespace of the driver that publishes it.',
    nodeTopology: 'The nodes the capacity is for, by their labels; none when absent.',
    storageClassName: 'The StorageClass the capacity is for. It cannot change.',
    capacity: 'How much storage is left for new volumes of the class there; unknown when absent.',
    maximumVolumeSize: 'The largest volume that can be made there now; capacity when absent.',
  },
  'How much storage a CSI driver can still provision for a class on some nodes, for the scheduler to read.',
);
export type CSIStorageCapacity = Static<typeof CSIStorageCapacitySchema>;
export type CSIStorageCapacityList = List<CSIStorageCapacity>;

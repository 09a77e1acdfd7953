import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, Described, ListAtomic, StringStringMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** The annotation that makes a class the default of claims that name none. */
export const IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
/** The same, under its beta key, which Kubernetes still honours. */
export const BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

/** When a claim of the class is bound (VolumeBindingMode). */
export const VolumeBindingModes = ['Immediate', 'WaitForFirstConsumer'] as const;
export type VolumeBindingMode = (typeof VolumeBindingModes)[number];

/** The reclaim policies a class may give its volumes (Recycle is a volume's only). */
export const StorageClassReclaimPolicies = ['Delete', 'Retain'] as const;

export const TopologySelectorLabelRequirementSchema = Described(
  Type.Object({ key: Type.String(), values: ListAtomic(Type.String()) }),
  { key: 'The label key of the topology (topology.kubernetes.io/zone, kubernetes.io/hostname).', values: 'The values of which the label must have one.' },
  'A topology label and the values it may have.',
);

export const TopologySelectorTermSchema = Described(
  Type.Object({ matchLabelExpressions: Type.Optional(ListAtomic(TopologySelectorLabelRequirementSchema)) }, ATOMIC),
  { matchLabelExpressions: 'Requirements on topology labels, all of which must hold.' },
  'A part of the cluster by its topology labels.',
);

export const StorageClassSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    provisioner: Type.String(),
    parameters: Type.Optional(StringStringMap()),
    reclaimPolicy: Type.Optional(Type.String({ default: 'Delete' })),
    mountOptions: Type.Optional(ListAtomic(Type.String())),
    allowVolumeExpansion: Type.Optional(Type.Boolean()),
    volumeBindingMode: Type.Optional(Type.String({ default: 'Immediate' })),
    allowedTopologies: Type.Optional(ListAtomic(TopologySelectorTermSchema)),
  }),
  {
    apiVersion: 'storage.k8s.io/v1.',
    kind: 'StorageClass.',
    metadata: "The class's name, which claims name in storageClassName; the annotation storageclass.kubernetes.io/is-default-class makes it the default.",
    provisioner: 'The provisioner that makes volumes of the class (svc.io/local-path for the local provisioner). It cannot change.',
    parameters: 'Settings passed to the provisioner. They cannot change.',
    reclaimPolicy: "The reclaim policy of the class's new volumes: Delete (the default) or Retain. It cannot change.",
    mountOptions: "Options the class's volumes are mounted with, not checked.",
    allowVolumeExpansion: 'Whether claims of the class may grow.',
    volumeBindingMode:
      "Immediate (the default): a claim is bound or provisioned as soon as it is made; WaitForFirstConsumer: once a pod using it is scheduled, on that pod's node. It cannot change.",
    allowedTopologies: 'Where volumes of the class may be provisioned; anywhere when empty.',
  },
  'A kind of storage the cluster offers: a provisioner and its parameters, of which claims ask volumes by name.',
);
export type StorageClass = Static<typeof StorageClassSchema>;
export type StorageClassList = List<StorageClass>;

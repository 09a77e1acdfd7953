import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, Described, FreeForm, ListAtomic, StringStringMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { OptionalTime } from '../../meta/condition';
import type { List } from '../../meta/list';
import { ResourceListSchema } from './container';
import { NodeSelectorSchema } from './node-selector';
import { ObjectReferenceSchema } from './object-reference';
import { HostPathVolumeSourceSchema, NFSVolumeSourceSchema } from './volume';

/** Access modes of a volume (PersistentVolumeAccessMode), sorted as Kubernetes lists them when one is not supported. */
export const PersistentVolumeAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'] as const;
export type PersistentVolumeAccessMode = (typeof PersistentVolumeAccessModes)[number];

/** What becomes of a volume once its claim is gone (PersistentVolumeReclaimPolicy). */
export const PersistentVolumeReclaimPolicies = ['Delete', 'Recycle', 'Retain'] as const;
export type PersistentVolumeReclaimPolicy = (typeof PersistentVolumeReclaimPolicies)[number];

/** How a volume is presented to a container (PersistentVolumeMode). */
export const PersistentVolumeModes = ['Block', 'Filesystem'] as const;

/** The phases of a volume (PersistentVolumePhase). */
export const PersistentVolumePhases = ['Pending', 'Available', 'Bound', 'Released', 'Failed'] as const;
export type PersistentVolumePhase = (typeof PersistentVolumePhases)[number];

/** The phases of a claim (PersistentVolumeClaimPhase). */
export const PersistentVolumeClaimPhases = ['Pending', 'Bound', 'Lost'] as const;
export type PersistentVolumeClaimPhase = (typeof PersistentVolumeClaimPhases)[number];

/** Sources of a volume this product's node agent does not mount; they still validate, so that real manifests pass. */
export const FOREIGN_PERSISTENT_VOLUME_SOURCES = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'rbd',
  'iscsi',
  'cinder',
  'cephfs',
  'fc',
  'flocker',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
] as const;

/** Every source a PersistentVolume may name (exactly one of them), in Kubernetes' field order. */
export const PERSISTENT_VOLUME_SOURCES = ['hostPath', 'nfs', 'local', 'csi', ...FOREIGN_PERSISTENT_VOLUME_SOURCES] as const;
export type PersistentVolumeSourceName = (typeof PERSISTENT_VOLUME_SOURCES)[number];

/** A Secret by name and namespace (SecretReference): a volume is cluster-scoped, so the namespace is named. */
export const SecretReferenceSchema = Described(
  Type.Object({ name: Type.Optional(Type.String()), namespace: Type.Optional(Type.String()) }, ATOMIC),
  {
    name: 'The name of the Secret.',
    namespace: 'The namespace of the Secret.',
  },
  'A Secret by name and namespace.',
);

export const LocalVolumeSourceSchema = Described(
  Type.Object({ path: Type.String(), fsType: Type.Optional(Type.String()) }),
  {
    path: 'The absolute path on the node of the directory (or block device) the volume is.',
    fsType: 'The filesystem of a block device, when the path is one.',
  },
  'Storage attached to one node (a directory or disk); the volume names that node in its nodeAffinity.',
);

export const CSIPersistentVolumeSourceSchema = Described(
  Type.Object({
    driver: Type.String(),
    volumeHandle: Type.String(),
    readOnly: Type.Optional(Type.Boolean()),
    fsType: Type.Optional(Type.String()),
    volumeAttributes: Type.Optional(StringStringMap()),
    controllerPublishSecretRef: Type.Optional(SecretReferenceSchema),
    nodeStageSecretRef: Type.Optional(SecretReferenceSchema),
    nodePublishSecretRef: Type.Optional(SecretReferenceSchema),
    controllerExpandSecretRef: Type.Optional(SecretReferenceSchema),
    nodeExpandSecretRef: Type.Optional(SecretReferenceSchema),
  }),
  {
    driver: 'The name of the CSI driver that serves the volume.',
    volumeHandle: 'What the driver calls the volume.',
    readOnly: 'Whether the volume is published read-only.',
    fsType: 'The filesystem to mount (ext4, xfs), when the driver asks.',
    volumeAttributes: 'Attributes the driver passes along to its node plugin.',
    controllerPublishSecretRef: 'A Secret passed to the driver when the volume is attached.',
    nodeStageSecretRef: 'A Secret passed to the driver when the volume is staged on a node.',
    nodePublishSecretRef: 'A Secret passed to the driver when the volume is mounted for a pod.',
    controllerExpandSecretRef: 'A Secret passed to the driver when the volume is expanded.',
    nodeExpandSecretRef: 'A Secret passed to the driver when the volume is expanded on a node.',
  },
  'A volume served by a CSI driver.',
);

export const VolumeNodeAffinitySchema = Described(
  Type.Object({ required: Type.Optional(NodeSelectorSchema) }),
  { required: 'The nodes the volume can be used from.' },
  'Which nodes can reach the volume; pods using it are scheduled onto them.',
);

export const PersistentVolumeSpecSchema = Described(
  Type.Object({
    capacity: Type.Optional(ResourceListSchema),
    hostPath: Type.Optional(HostPathVolumeSourceSchema),
    nfs: Type.Optional(NFSVolumeSourceSchema),
    local: Type.Optional(LocalVolumeSourceSchema),
    csi: Type.Optional(CSIPersistentVolumeSourceSchema),
    gcePersistentDisk: Type.Optional(FreeForm(ATOMIC)),
    awsElasticBlockStore: Type.Optional(FreeForm(ATOMIC)),
    glusterfs: Type.Optional(FreeForm(ATOMIC)),
    rbd: Type.Optional(FreeForm(ATOMIC)),
    iscsi: Type.Optional(FreeForm(ATOMIC)),
    cinder: Type.Optional(FreeForm(ATOMIC)),
    cephfs: Type.Optional(FreeForm(ATOMIC)),
    fc: Type.Optional(FreeForm(ATOMIC)),
    flocker: Type.Optional(FreeForm(ATOMIC)),
    flexVolume: Type.Optional(FreeForm(ATOMIC)),
    azureFile: Type.Optional(FreeForm(ATOMIC)),
    vsphereVolume: Type.Optional(FreeForm(ATOMIC)),
    quobyte: Type.Optional(FreeForm(ATOMIC)),
    azureDisk: Type.Optional(FreeForm(ATOMIC)),
    photonPersistentDisk: Type.Optional(FreeForm(ATOMIC)),
    portworxVolume: Type.Optional(FreeForm(ATOMIC)),
    scaleIO: Type.Optional(FreeForm(ATOMIC)),
    storageos: Type.Optional(FreeForm(ATOMIC)),
    accessModes: Type.Optional(ListAtomic(Type.String())),
    claimRef: Type.Optional(ObjectReferenceSchema),
    persistentVolumeReclaimPolicy: Type.Optional(Type.String({ default: 'Retain' })),
    storageClassName: Type.Optional(Type.String()),
    mountOptions: Type.Optional(ListAtomic(Type.String())),
    volumeMode: Type.Optional(Type.String({ default: 'Filesystem' })),
    nodeAffinity: Type.Optional(VolumeNodeAffinitySchema),
    volumeAttributesClassName: Type.Optional(Type.String()),
  }),
  {
    capacity: 'How much the volume holds: storage, a quantity such as 10Gi. Required.',
    hostPath: "A directory of the node's filesystem; for one-node clusters and tests.",
    nfs: "An NFS server's export, mounted by the node.",
    local: 'Storage attached to one node; the volume must then name the node in nodeAffinity.',
    csi: 'A volume a CSI driver serves: its driver, its handle and the secrets the driver is given.',
    gcePersistentDisk: 'A GCE persistent disk. Accepted and kept; this server mounts no such volume.',
    awsElasticBlockStore: 'An AWS EBS volume. Accepted and kept; this server mounts no such volume.',
    glusterfs: 'A Glusterfs volume. Accepted and kept; this server mounts no such volume.',
    rbd: 'A Rados block device. Accepted and kept; this server mounts no such volume.',
    iscsi: 'An iSCSI disk. Accepted and kept; this server mounts no such volume.',
    cinder: 'An OpenStack Cinder volume. Accepted and kept; this server mounts no such volume.',
    cephfs: 'A CephFS mount. Accepted and kept; this server mounts no such volume.',
    fc: 'A Fibre Channel disk. Accepted and kept; this server mounts no such volume.',
    flocker: 'A Flocker dataset. Accepted and kept; this server mounts no such volume.',
    flexVolume: 'A FlexVolume plugin volume. Accepted and kept; this server mounts no such volume.',
    azureFile: 'An Azure File share. Accepted and kept; this server mounts no such volume.',
    vsphereVolume: 'A vSphere disk. Accepted and kept; this server mounts no such volume.',
    quobyte: 'A Quobyte volume. Accepted and kept; this server mounts no such volume.',
    azureDisk: 'An Azure data disk. Accepted and kept; this server mounts no such volume.',
    photonPersistentDisk: 'A Photon disk. Accepted and kept; this server mounts no such volume.',
    portworxVolume: 'A Portworx volume. Accepted and kept; this server mounts no such volume.',
    scaleIO: 'A ScaleIO volume. Accepted and kept; this server mounts no such volume.',
    storageos: 'A StorageOS volume. Accepted and kept; this server mounts no such volume.',
    accessModes: 'How the volume can be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.',
    claimRef: 'The claim the volume is bound to, or reserved for.',
    persistentVolumeReclaimPolicy: 'What happens once the claim is deleted: Retain (the default for volumes made by hand), Delete, or Recycle.',
    storageClassName: 'The StorageClass the volume belongs to; only claims of that class bind it. Empty: claims of no class.',
    mountOptions: 'Options the volume is mounted with, not checked.',
    volumeMode: 'Filesystem (the default) or Block.',
    nodeAffinity: 'The nodes the volume can be used from; pods using it are scheduled onto them.',
    volumeAttributesClassName: 'The VolumeAttributesClass of the volume (not served by this server).',
  },
  'What a volume is, where it lives and who may bind it.',
);

export const PersistentVolumeStatusSchema = Described(
  Type.Object({
    phase: Type.Optional(Type.String({ default: 'Pending' })),
    message: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String()),
    lastPhaseTransitionTime: OptionalTime(),
  }),
  {
    phase: 'Pending, Available (no claim), Bound, Released (its claim is gone) or Failed.',
    message: 'Why the volume is in its phase, in words for people.',
    reason: 'Why the volume is in its phase, in one CamelCase word.',
    lastPhaseTransitionTime: 'When the volume last changed phase.',
  },
  'Where the volume stands.',
);

export const PersistentVolumeSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'v1.' })),
    kind: Type.Optional(Type.String({ description: 'PersistentVolume.' })),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: Type.Optional(PersistentVolumeSpecSchema),
    status: Type.Optional(PersistentVolumeStatusSchema),
  },
  {
    description: 'A piece of storage of the cluster, made by an administrator or a provisioner: a volume a PersistentVolumeClaim binds to and pods then mount.',
  },
);
export type PersistentVolume = Static<typeof PersistentVolumeSchema>;
export type PersistentVolumeSpec = Static<typeof PersistentVolumeSpecSchema>;
export type PersistentVolumeStatus = Static<typeof PersistentVolumeStatusSchema>;
export type PersistentVolumeList = List<PersistentVolume>;

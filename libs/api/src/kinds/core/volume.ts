import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, FreeForm, Int32, Int64, ListAtomic, Quantity, StringEnum, StringStringMap } from '../../schema/builders';
import { DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_PATTERN } from '../../meta/names';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { ObjectFieldSelectorSchema, ResourceFieldSelectorSchema } from './container';
import { LocalObjectReferenceSchema } from './object-reference';

/** Unix permission bits as a decimal number (0644 is 420). */
const FileMode = () => Int32({ minimum: 0, maximum: 0o777 });
const DefaultMode = () => Int32({ minimum: 0, maximum: 0o777, default: 0o644 });

export const KeyToPathSchema = Type.Object({
  key: Type.String({ minLength: 1 }),
  path: Type.String({ minLength: 1 }),
  mode: Type.Optional(FileMode()),
});

export const DownwardAPIVolumeFileSchema = Type.Object({
  path: Type.String({ minLength: 1 }),
  fieldRef: Type.Optional(ObjectFieldSelectorSchema),
  resourceFieldRef: Type.Optional(ResourceFieldSelectorSchema),
  mode: Type.Optional(FileMode()),
});

const ConfigMapProjection = () =>
  Type.Object({
    name: Type.Optional(Type.String()),
    items: Type.Optional(ListAtomic(KeyToPathSchema)),
    optional: Type.Optional(Type.Boolean()),
  });

export const VolumeProjectionSchema = Type.Object({
  secret: Type.Optional(ConfigMapProjection()),
  configMap: Type.Optional(ConfigMapProjection()),
  downwardAPI: Type.Optional(Type.Object({ items: Type.Optional(ListAtomic(DownwardAPIVolumeFileSchema)) })),
  serviceAccountToken: Type.Optional(
    Type.Object({
      audience: Type.Optional(Type.String()),
      expirationSeconds: Type.Optional(Int64({ minimum: 600, default: 3600 })),
      path: Type.String({ minLength: 1 }),
    }),
  ),
  clusterTrustBundle: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String()),
      signerName: Type.Optional(Type.String()),
      labelSelector: Type.Optional(LabelSelectorSchema),
      optional: Type.Optional(Type.Boolean()),
      path: Type.String(),
    }),
  ),
  podCertificate: Type.Optional(FreeForm()),
});

/** Sorted, as Kubernetes lists them when a type is not supported. */
export const HostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'] as const;

/** Sources this product's node agent does not implement still validate, so that real manifests pass. */
const foreignSources = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'gitRepo',
  'glusterfs',
  'image',
  'iscsi',
  'photonPersistentDisk',
  'portworxVolume',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
  'vsphereVolume',
] as const;

export const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'secret',
  'configMap',
  'persistentVolumeClaim',
  'projected',
  'downwardAPI',
  'nfs',
  'csi',
  'ephemeral',
  ...foreignSources,
] as const;

export const VolumeSchema = Type.Object({
  name: Type.String({ pattern: DNS1123_LABEL_PATTERN, maxLength: DNS1123_LABEL_MAX_LENGTH }),
  hostPath: Type.Optional(Type.Object({ path: Type.String({ minLength: 1 }), type: Type.Optional(StringEnum(HostPathTypes, { default: '' })) })),
  emptyDir: Type.Optional(Type.Object({ medium: Type.Optional(StringEnum(['', 'Memory', 'HugePages'] as const)), sizeLimit: Type.Optional(Quantity()) })),
  secret: Type.Optional(
    Type.Object({
      secretName: Type.Optional(Type.String()),
      items: Type.Optional(ListAtomic(KeyToPathSchema)),
      defaultMode: Type.Optional(DefaultMode()),
      optional: Type.Optional(Type.Boolean()),
    }),
  ),
  configMap: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String()),
      items: Type.Optional(ListAtomic(KeyToPathSchema)),
      defaultMode: Type.Optional(DefaultMode()),
      optional: Type.Optional(Type.Boolean()),
    }),
  ),
  persistentVolumeClaim: Type.Optional(Type.Object({ claimName: Type.String({ minLength: 1 }), readOnly: Type.Optional(Type.Boolean()) })),
  projected: Type.Optional(Type.Object({ sources: Type.Optional(ListAtomic(VolumeProjectionSchema)), defaultMode: Type.Optional(DefaultMode()) })),
  downwardAPI: Type.Optional(Type.Object({ items: Type.Optional(ListAtomic(DownwardAPIVolumeFileSchema)), defaultMode: Type.Optional(DefaultMode()) })),
  nfs: Type.Optional(Type.Object({ server: Type.String(), path: Type.String(), readOnly: Type.Optional(Type.Boolean()) })),
  csi: Type.Optional(
    Type.Object({
      driver: Type.String(),
      readOnly: Type.Optional(Type.Boolean()),
      fsType: Type.Optional(Type.String()),
      volumeAttributes: Type.Optional(StringStringMap()),
      nodePublishSecretRef: Type.Optional(LocalObjectReferenceSchema),
    }),
  ),
  ephemeral: Type.Optional(Type.Object({ volumeClaimTemplate: Type.Optional(FreeForm()) })),
  ...Object.fromEntries(foreignSources.map((name) => [name, Type.Optional(FreeForm(ATOMIC))])),
});
export type Volume = Static<typeof VolumeSchema>;

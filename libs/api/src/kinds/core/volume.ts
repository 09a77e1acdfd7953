import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, describeFields, FreeForm, Int32, Int64, ListAtomic, Quantity, StringEnum, StringStringMap } from '../../schema/builders';
import { DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_PATTERN } from '../../meta/names';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { ObjectFieldSelectorSchema, ResourceFieldSelectorSchema } from './container';
import { LocalObjectReferenceSchema } from './object-reference';
import { PersistentVolumeClaimSpecSchema } from './persistent-volume-claim';
import { TemplateObjectMetaSchema } from '../../meta/object-meta';

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
  ephemeral: Type.Optional(
    Type.Object({
      volumeClaimTemplate: Type.Optional(Type.Object({ metadata: Type.Optional(TemplateObjectMetaSchema), spec: PersistentVolumeClaimSpecSchema })),
    }),
  ),
  ...Object.fromEntries(foreignSources.map((name) => [name, Type.Optional(FreeForm(ATOMIC))])),
});
export type Volume = Static<typeof VolumeSchema>;

// What `kubectl explain` says of each field, in this project's words.
const NOT_MOUNTED = "This server's node agent mounts no such volume: the pod fails to start.";

describeFields(
  KeyToPathSchema,
  {
    key: 'The key whose value becomes the file.',
    path: 'The path of the file in the volume: relative, without `..`.',
    mode: "The file's permission bits, as a number (0400 is 256); the volume's defaultMode when left out.",
  },
  'A key of a ConfigMap or Secret, and the file it becomes.',
);

describeFields(
  DownwardAPIVolumeFileSchema,
  {
    path: 'The path of the file in the volume: relative, without `..`.',
    fieldRef: 'The pod field the file holds: metadata.name, metadata.namespace, metadata.uid, metadata.labels or metadata.annotations, whole or one key.',
    resourceFieldRef: 'The request or limit of a container the file holds.',
    mode: "The file's permission bits, as a number (0400 is 256); the volume's defaultMode when left out.",
  },
  'A file holding a field of the pod or a resource of a container; labels and annotations are rewritten when they change.',
);

const MODE = "The permission bits of its files, as a number (0644 is 420); 0644 by default. An item's own mode wins.";
const itemsOf = (what: string) =>
  `Which keys to project, and as which files; left out, every key becomes a file named after it. A listed key that is missing is an error, unless the ${what} is optional.`;

describeFields(
  VolumeProjectionSchema,
  {
    secret: 'The keys of a Secret.',
    'secret.name': "The Secret's name, in the pod's namespace.",
    'secret.items': itemsOf('Secret'),
    'secret.optional': 'Whether the pod starts when the Secret or a listed key is missing.',
    configMap: 'The keys of a ConfigMap.',
    'configMap.name': "The ConfigMap's name, in the pod's namespace.",
    'configMap.items': itemsOf('ConfigMap'),
    'configMap.optional': 'Whether the pod starts when the ConfigMap or a listed key is missing.',
    downwardAPI: 'Fields of the pod and resources of its containers.',
    'downwardAPI.items': 'The files, each with the field or resource it holds.',
    serviceAccountToken: "A token of the pod's service account, renewed by the node agent before it expires.",
    'serviceAccountToken.audience': "Who the token is meant for, which they must check; the API server's own audience by default.",
    'serviceAccountToken.expirationSeconds':
      'How long each token is valid: at least 600, 3600 by default. The node agent renews it once 80% of that has passed, or after 24 hours.',
    'serviceAccountToken.path': 'The path of the token file in the volume.',
    clusterTrustBundle: 'The certificates of ClusterTrustBundle objects, as one PEM file. This server serves no ClusterTrustBundle: the pod fails to start.',
    'clusterTrustBundle.name': 'One ClusterTrustBundle, by name; not with signerName.',
    'clusterTrustBundle.signerName': 'Every ClusterTrustBundle of this signer that labelSelector matches.',
    'clusterTrustBundle.labelSelector': 'Which bundles of the signer to take; none when left out, all when empty.',
    'clusterTrustBundle.optional': 'Whether the pod starts when no bundle is found.',
    'clusterTrustBundle.path': 'The path of the PEM file in the volume.',
    podCertificate: "A private key and a certificate issued for the pod. This server's node agent does not make them: the pod fails to start.",
  },
  'One source of a projected volume: exactly one of secret, configMap, downwardAPI, serviceAccountToken or clusterTrustBundle.',
);

const FOREIGN_SOURCES: Record<(typeof foreignSources)[number], string> = {
  awsElasticBlockStore: 'An AWS Elastic Block Store disk. Deprecated: its CSI driver serves it now.',
  azureDisk: 'An Azure data disk. Deprecated: its CSI driver serves it now.',
  azureFile: 'An Azure Files share. Deprecated: its CSI driver serves it now.',
  cephfs: 'A CephFS mount. Deprecated.',
  cinder: 'An OpenStack Cinder volume. Deprecated: its CSI driver serves it now.',
  fc: 'A Fibre Channel disk attached to the node.',
  flexVolume: 'A volume from a FlexVolume driver installed on the node. Deprecated: use a CSI driver.',
  flocker: 'A Flocker dataset. Deprecated.',
  gcePersistentDisk: 'A Google Compute Engine persistent disk. Deprecated: its CSI driver serves it now.',
  gitRepo: 'A git repository cloned into an empty directory. Deprecated: clone it in an init container instead.',
  glusterfs: 'A GlusterFS mount. Deprecated.',
  image: 'The content of an OCI image or artifact, mounted read-only.',
  iscsi: 'An iSCSI disk attached to the node.',
  photonPersistentDisk: 'A Photon Controller disk. Deprecated.',
  portworxVolume: 'A Portworx volume. Deprecated: its CSI driver serves it now.',
  quobyte: 'A Quobyte mount. Deprecated.',
  rbd: 'A Ceph RADOS block device. Deprecated.',
  scaleIO: 'A ScaleIO volume. Deprecated.',
  storageos: 'A StorageOS volume. Deprecated.',
  vsphereVolume: 'A vSphere disk. Deprecated: its CSI driver serves it now.',
};

describeFields(
  VolumeSchema,
  {
    name: "The volume's name, a DNS label unique in the pod, by which containers mount it.",
    hostPath: 'A file or directory of the node. It gives the pod a way into the node itself: few pods should have one.',
    'hostPath.path': 'The path on the node; a symbolic link is followed.',
    'hostPath.type':
      'What must be at the path: empty (nothing is checked, the default), DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice.',
    emptyDir: 'An empty directory made for the pod, deleted with it.',
    'emptyDir.medium':
      "Where it lives: empty for the node's disk (the default), Memory for a tmpfs counted as the pod's memory, HugePages for huge pages. This server's node agent puts HugePages on disk.",
    'emptyDir.sizeLimit':
      "The most it may hold; a pod that writes more is evicted. For Memory, also the size of the tmpfs. This server's node agent bounds only Memory volumes.",
    secret: 'The keys of a Secret, as files; rewritten when the Secret changes.',
    'secret.secretName': "The Secret's name, in the pod's namespace.",
    'secret.items': itemsOf('Secret'),
    'secret.defaultMode': MODE,
    'secret.optional': 'Whether the pod starts when the Secret or a listed key is missing.',
    configMap: 'The keys of a ConfigMap, as files; rewritten when the ConfigMap changes.',
    'configMap.name': "The ConfigMap's name, in the pod's namespace.",
    'configMap.items': itemsOf('ConfigMap'),
    'configMap.defaultMode': MODE,
    'configMap.optional': 'Whether the pod starts when the ConfigMap or a listed key is missing.',
    persistentVolumeClaim: "The volume bound to a PersistentVolumeClaim of the pod's namespace; the pod waits until the claim is bound.",
    'persistentVolumeClaim.claimName': "The claim's name.",
    'persistentVolumeClaim.readOnly': 'Whether the volume is mounted read-only; false by default.',
    projected: 'Several sources (Secrets, ConfigMaps, pod fields, service account tokens) in one directory.',
    'projected.sources': 'The sources, each projected into the same directory.',
    'projected.defaultMode': MODE,
    downwardAPI: 'Fields of the pod and resources of its containers, as files.',
    'downwardAPI.items': 'The files, each with the field or resource it holds.',
    'downwardAPI.defaultMode': MODE,
    nfs: `An NFS export, mounted by the node. ${NOT_MOUNTED}`,
    'nfs.server': 'The NFS server, by host name or IP.',
    'nfs.path': 'The exported path.',
    'nfs.readOnly': 'Whether the export is mounted read-only; false by default.',
    csi: `A volume a CSI driver provides for this pod alone. ${NOT_MOUNTED}`,
    'csi.driver': 'The name of the CSI driver, as registered on the node.',
    'csi.readOnly': 'Whether the volume is mounted read-only; false by default.',
    'csi.fsType': 'The filesystem to mount it with, such as ext4; the driver decides when left out.',
    'csi.volumeAttributes': 'Settings handed to the driver; what they mean is up to it.',
    'csi.nodePublishSecretRef': "A Secret in the pod's namespace handed to the driver when it mounts the volume.",
    ephemeral: 'A PersistentVolumeClaim made for the pod from a template (named <pod>-<volume>), owned by the pod and deleted with it.',
    'ephemeral.volumeClaimTemplate': "The claim to make: its labels and annotations, and a PersistentVolumeClaim's spec.",
    'ephemeral.volumeClaimTemplate.metadata': 'Labels and annotations the claim is made with; its name is always <pod>-<volume>.',
    'ephemeral.volumeClaimTemplate.spec': 'The spec of the claim, as a PersistentVolumeClaim takes it; required.',
    ...Object.fromEntries(Object.entries(FOREIGN_SOURCES).map(([name, text]) => [name, `${text} ${NOT_MOUNTED}`])),
  },
  'Storage the containers of a pod may mount: a name, and exactly one source.',
);

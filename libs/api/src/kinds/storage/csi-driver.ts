import { Type, type Static } from '@sinclair/typebox';
import { Described, Int64, ListAtomic, ListSet } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** How a driver's volumes are used (VolumeLifecycleMode). */
export const VolumeLifecycleModes = ['Ephemeral', 'Persistent'] as const;
/** Whether the node agent changes a volume's ownership to a pod's fsGroup (FSGroupPolicy). */
export const FSGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'] as const;

export const TokenRequestSchema = Described(
  Type.Object({ audience: Type.String(), expirationSeconds: Type.Optional(Int64()) }),
  { audience: 'The audience of the token.', expirationSeconds: 'How long the token is valid, in seconds.' },
  'A service account token the node agent passes to the driver when it mounts a volume.',
);

export const CSIDriverSpecSchema = Described(
  Type.Object({
    attachRequired: Type.Optional(Type.Boolean({ default: true })),
    podInfoOnMount: Type.Optional(Type.Boolean({ default: false })),
    volumeLifecycleModes: Type.Optional(ListSet(Type.String())),
    storageCapacity: Type.Optional(Type.Boolean({ default: false })),
    fsGroupPolicy: Type.Optional(Type.String({ default: 'ReadWriteOnceWithFSType' })),
    tokenRequests: Type.Optional(ListAtomic(TokenRequestSchema)),
    requiresRepublish: Type.Optional(Type.Boolean({ default: false })),
    seLinuxMount: Type.Optional(Type.Boolean({ default: false })),
  }),
  {
    attachRequired: 'Whether volumes of the driver are attached (a VolumeAttachment) before they are mounted. It cannot change.',
    podInfoOnMount: "Whether the pod's name, namespace, uid and service account are passed to the driver on mount.",
    volumeLifecycleModes: 'Persistent, Ephemeral (inline CSI volumes of pods), or both. They cannot change.',
    storageCapacity: 'Whether the driver publishes CSIStorageCapacity objects for the scheduler to read.',
    fsGroupPolicy: "Whether a volume's ownership is changed to the pod's fsGroup: ReadWriteOnceWithFSType (the default), File or None.",
    tokenRequests: 'Service account tokens passed to the driver on mount.',
    requiresRepublish: 'Whether the driver is called again periodically to mount a volume already mounted.',
    seLinuxMount: 'Whether the driver supports the -o context mount option.',
  },
  'How the cluster works with a CSI driver.',
);

export const CSIDriverSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: CSIDriverSpecSchema,
  }),
  {
    apiVersion: 'storage.k8s.io/v1.',
    kind: 'CSIDriver.',
    metadata: 'The name of the driver, as the driver calls itself.',
    spec: 'How the cluster works with the driver.',
  },
  'A CSI driver installed in the cluster, and how the cluster works with it.',
);
export type CSIDriver = Static<typeof CSIDriverSchema>;
export type CSIDriverList = List<CSIDriver>;

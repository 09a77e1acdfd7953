import { Type, type Static } from '@sinclair/typebox';
import { describeFields, ListAtomic, ListMap, StringStringMap } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { objectMetaSchema, TemplateObjectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ResourceListSchema } from './container';

/** Where a claim's volume is filled from: an object of the claim's namespace. */
export const TypedLocalObjectReferenceSchema = Type.Object({
  apiGroup: Type.Optional(Type.String()),
  kind: Type.String(),
  name: Type.String(),
});

export const TypedObjectReferenceSchema = Type.Object({
  apiGroup: Type.Optional(Type.String()),
  kind: Type.String(),
  name: Type.String(),
  namespace: Type.Optional(Type.String()),
});

export const VolumeResourceRequirementsSchema = Type.Object({
  limits: Type.Optional(ResourceListSchema),
  requests: Type.Optional(ResourceListSchema),
});

export const PersistentVolumeClaimSpecSchema = Type.Object({
  accessModes: Type.Optional(ListAtomic(Type.String())),
  selector: Type.Optional(LabelSelectorSchema),
  resources: Type.Optional(VolumeResourceRequirementsSchema),
  volumeName: Type.Optional(Type.String()),
  storageClassName: Type.Optional(Type.String()),
  volumeMode: Type.Optional(Type.String({ default: 'Filesystem' })),
  dataSource: Type.Optional(TypedLocalObjectReferenceSchema),
  dataSourceRef: Type.Optional(TypedObjectReferenceSchema),
  volumeAttributesClassName: Type.Optional(Type.String()),
});

export const PersistentVolumeClaimConditionSchema = kindConditionSchema({ lastProbeTime: OptionalTime(), lastTransitionTime: OptionalTime() });

export const ModifyVolumeStatusSchema = Type.Object({
  targetVolumeAttributesClassName: Type.Optional(Type.String()),
  status: Type.String(),
});

export const PersistentVolumeClaimStatusSchema = Type.Object({
  phase: Type.Optional(Type.String({ default: 'Pending' })),
  accessModes: Type.Optional(ListAtomic(Type.String())),
  capacity: Type.Optional(ResourceListSchema),
  conditions: Type.Optional(ListMap(PersistentVolumeClaimConditionSchema, ['type'])),
  allocatedResources: Type.Optional(ResourceListSchema),
  allocatedResourceStatuses: Type.Optional(StringStringMap()),
  currentVolumeAttributesClassName: Type.Optional(Type.String()),
  modifyVolumeStatus: Type.Optional(ModifyVolumeStatusSchema),
});

/**
 * A PersistentVolumeClaim as a workload's template holds it (a StatefulSet's volumeClaimTemplates):
 * the whole object, whose metadata names the claims made from it.
 */
export const PersistentVolumeClaimTemplateSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(TemplateObjectMetaSchema),
  spec: Type.Optional(PersistentVolumeClaimSpecSchema),
  /** SetDefaults_PersistentVolumeClaim: a claim starts Pending. */
  status: Type.Optional(Type.Object(PersistentVolumeClaimStatusSchema.properties, { default: {} })),
});
export type PersistentVolumeClaimTemplate = Static<typeof PersistentVolumeClaimTemplateSchema>;
export type PersistentVolumeClaimSpec = Static<typeof PersistentVolumeClaimSpecSchema>;
export type PersistentVolumeClaimStatus = Static<typeof PersistentVolumeClaimStatusSchema>;

/** The served kind: a user's request for storage, bound by the volume controller to a PersistentVolume. */
export const PersistentVolumeClaimSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'v1.' })),
    kind: Type.Optional(Type.String({ description: 'PersistentVolumeClaim.' })),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: Type.Optional(PersistentVolumeClaimSpecSchema),
    status: Type.Optional(PersistentVolumeClaimStatusSchema),
  },
  {
    description:
      'A request for storage of a namespace: how much, how it is mounted and of which class. It is bound to one PersistentVolume, which pods then mount by naming the claim.',
  },
);
export type PersistentVolumeClaim = Static<typeof PersistentVolumeClaimSchema>;
export type PersistentVolumeClaimList = List<PersistentVolumeClaim>;

/** The finalizer that keeps a claim while a pod uses it (StorageObjectInUseProtection). */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
/** The finalizer that keeps a volume while a claim is bound to it. */
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
/** The node the scheduler chose for a WaitForFirstConsumer claim; the provisioner makes the volume there. */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';
/** The provisioner expected to make a claim's volume. */
export const STORAGE_PROVISIONER_ANNOTATION = 'volume.kubernetes.io/storage-provisioner';
/** The same, under its beta key, which external provisioners still read. */
export const BETA_STORAGE_PROVISIONER_ANNOTATION = 'volume.beta.kubernetes.io/storage-provisioner';
/** The provisioner that made a volume. */
export const PROVISIONED_BY_ANNOTATION = 'pv.kubernetes.io/provisioned-by';
/** Set on a claim once the volume controller completed its binding. */
export const BIND_COMPLETED_ANNOTATION = 'pv.kubernetes.io/bind-completed';
/** Set on a claim or volume whose binding the controller made (rather than the user). */
export const BOUND_BY_CONTROLLER_ANNOTATION = 'pv.kubernetes.io/bound-by-controller';
/** The class an old claim or volume names in an annotation, before storageClassName existed. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  TypedLocalObjectReferenceSchema,
  {
    apiGroup: 'The group of the object; the core group when left out.',
    kind: 'The kind of the object.',
    name: 'The name of the object.',
  },
  'An object of the same namespace, by group, kind and name.',
);
describeFields(
  TypedObjectReferenceSchema,
  {
    apiGroup: 'The group of the object; the core group when left out.',
    kind: 'The kind of the object.',
    name: 'The name of the object.',
    namespace: "The object's namespace, when it is not the claim's.",
  },
  'An object by group, kind, name and namespace.',
);
describeFields(
  VolumeResourceRequirementsSchema,
  {
    limits: 'The most of each resource the volume may have.',
    requests: 'How much of each resource (storage) the volume must have at least.',
  },
  'How much storage a claim asks for.',
);
describeFields(
  PersistentVolumeClaimSpecSchema,
  {
    accessModes: 'How the volume may be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.',
    selector: 'Labels a PersistentVolume must carry to be bound to the claim.',
    resources: 'How much storage the claim asks for.',
    volumeName: 'The PersistentVolume the claim is bound to, or asks for.',
    storageClassName: 'The StorageClass that provides the volume; the default class when left out, none when empty.',
    volumeMode: 'Filesystem (the default) or Block.',
    dataSource: 'An object the new volume is filled from: a VolumeSnapshot or another claim.',
    dataSourceRef: 'An object the new volume is filled from, of any kind a volume populator knows.',
    volumeAttributesClassName: 'The VolumeAttributesClass that sets the volume’s attributes.',
  },
  'What storage a claim asks for.',
);
describeFields(
  PersistentVolumeClaimConditionSchema,
  conditionFieldDescriptions(PersistentVolumeClaimConditionSchema, 'Resizing, FileSystemResizePending and the like.'),
  'One aspect of the state of a PersistentVolumeClaim.',
);
describeFields(
  ModifyVolumeStatusSchema,
  {
    targetVolumeAttributesClassName: 'The VolumeAttributesClass the volume is being changed to.',
    status: 'Pending, InProgress or Infeasible.',
  },
  'How a change of the volume’s attributes class goes.',
);
describeFields(
  PersistentVolumeClaimStatusSchema,
  {
    phase: 'Pending, Bound or Lost.',
    accessModes: 'The access modes of the bound volume.',
    capacity: 'What the bound volume has.',
    conditions: 'Where a resize of the volume stands.',
    allocatedResources: 'What was allocated to the claim, resizes included.',
    allocatedResourceStatuses: 'Where a resize of each resource stands.',
    currentVolumeAttributesClassName: 'The VolumeAttributesClass the volume has now.',
    modifyVolumeStatus: 'Where a change of the volume’s attributes class stands.',
  },
  'What is known of a claim and its volume.',
);
describeFields(
  PersistentVolumeClaimTemplateSchema,
  {
    apiVersion: 'v1.',
    kind: 'PersistentVolumeClaim.',
    metadata: 'The name the claims made from the template start with, and their labels and annotations.',
    spec: 'What storage each claim asks for.',
    status: 'Not used in a template; Pending.',
  },
  'A PersistentVolumeClaim as a template of the claims a workload makes for its pods.',
);

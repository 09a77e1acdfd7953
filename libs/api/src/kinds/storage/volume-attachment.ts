import { Type, type Static } from '@sinclair/typebox';
import { Described, StringStringMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { OptionalTime } from '../../meta/condition';
import type { List } from '../../meta/list';
import { PersistentVolumeSpecSchema } from '../core/persistent-volume';

export const VolumeAttachmentSourceSchema = Described(
  Type.Object({
    persistentVolumeName: Type.Optional(Type.String()),
    inlineVolumeSpec: Type.Optional(PersistentVolumeSpecSchema),
  }),
  {
    persistentVolumeName: 'The PersistentVolume to attach.',
    inlineVolumeSpec: "A pod's inline volume, translated to a volume's spec, to attach.",
  },
  'The volume to attach: exactly one of its fields.',
);

export const VolumeAttachmentSpecSchema = Described(
  Type.Object({ attacher: Type.String(), source: VolumeAttachmentSourceSchema, nodeName: Type.String() }),
  {
    attacher: 'The CSI driver that attaches the volume.',
    source: 'The volume to attach.',
    nodeName: 'The node to attach it to.',
  },
  'What to attach where. It cannot change.',
);

export const VolumeErrorSchema = Described(
  Type.Object({ time: OptionalTime(), message: Type.Optional(Type.String()) }),
  { time: 'When the error happened.', message: 'What went wrong, in words for people.' },
  'An error of an attach or detach.',
);

export const VolumeAttachmentStatusSchema = Described(
  Type.Object({
    attached: Type.Boolean({ default: false }),
    attachmentMetadata: Type.Optional(StringStringMap()),
    attachError: Type.Optional(VolumeErrorSchema),
    detachError: Type.Optional(VolumeErrorSchema),
  }),
  {
    attached: 'Whether the volume is attached.',
    attachmentMetadata: 'What the driver says of the attachment, passed on to the mount.',
    attachError: 'The last error attaching the volume.',
    detachError: 'The last error detaching the volume.',
  },
  'Where the attachment stands, written by the attacher.',
);

export const VolumeAttachmentSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: VolumeAttachmentSpecSchema,
    status: Type.Optional(VolumeAttachmentStatusSchema),
  }),
  {
    apiVersion: 'storage.k8s.io/v1.',
    kind: 'VolumeAttachment.',
    metadata: "The attachment's name.",
    spec: 'What to attach where.',
    status: 'Where the attachment stands.',
  },
  'A request to attach a volume to a node, for CSI drivers that attach before they mount.',
);
export type VolumeAttachment = Static<typeof VolumeAttachmentSchema>;
export type VolumeAttachmentList = List<VolumeAttachment>;

import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Time } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

export const LeaseSpecSchema = Type.Object({
  holderIdentity: Type.Optional(Type.String()),
  leaseDurationSeconds: Type.Optional(Int32({ minimum: 1 })),
  /** MicroTime. */
  acquireTime: Type.Optional(Time()),
  /** MicroTime. */
  renewTime: Type.Optional(Time()),
  leaseTransitions: Type.Optional(Int32({ minimum: 0 })),
  strategy: Type.Optional(Type.String()),
  preferredHolder: Type.Optional(Type.String()),
});

export const LeaseSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  // A struct value in Go: always serialized, `{}` when empty.
  spec: Type.Optional(Type.Object(LeaseSpecSchema.properties, { default: {} })),
});
export type Lease = Static<typeof LeaseSchema>;
export type LeaseList = List<Lease>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  LeaseSpecSchema,
  {
    holderIdentity: 'Who holds the lease now, such as one instance of a controller, or a node.',
    leaseDurationSeconds: 'How long others wait after the last renewal before they may take the lease over.',
    acquireTime: 'When the current holder took the lease.',
    renewTime: 'When the holder last renewed it.',
    leaseTransitions: 'How many times the lease has changed hands.',
    strategy: 'How coordinated leader election picks the next holder: OldestEmulationVersion. Not acted on by this server.',
    preferredHolder: 'The holder coordinated leader election wants next; the current holder should let the lease go. Not acted on by this server.',
  },
  'Who holds a lease, and until when.',
);
(LeaseSchema as { description?: string }).description =
  'A lock held for a term and renewed by its holder: leader election among the replicas of a component, and the heartbeat of each node (in kube-node-lease).';

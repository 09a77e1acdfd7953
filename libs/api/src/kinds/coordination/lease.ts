import { Type, type Static } from '@sinclair/typebox';
import { Int32, Time } from '../../schema/builders';
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

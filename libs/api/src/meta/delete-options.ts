import { Type, type Static } from '@sinclair/typebox';
import { Int64, ListAtomic, StringEnum } from '../schema/builders';

export const PropagationPolicies = ['Orphan', 'Background', 'Foreground'] as const;
export type PropagationPolicy = (typeof PropagationPolicies)[number];

export const PreconditionsSchema = Type.Object({
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
});
export type Preconditions = Static<typeof PreconditionsSchema>;

export const DeleteOptionsSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  gracePeriodSeconds: Type.Optional(Int64({ minimum: 0 })),
  preconditions: Type.Optional(PreconditionsSchema),
  propagationPolicy: Type.Optional(StringEnum(PropagationPolicies)),
  orphanDependents: Type.Optional(Type.Boolean()),
  dryRun: Type.Optional(ListAtomic(StringEnum(['All'] as const))),
});
export type DeleteOptions = Static<typeof DeleteOptionsSchema>;

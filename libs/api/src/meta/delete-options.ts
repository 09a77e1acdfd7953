import { Type } from '@sinclair/typebox';
import type { DeleteOptions, Preconditions, PropagationPolicy } from '@svc/machinery';
import { Int64, ListAtomic, StringEnum } from '../schema/builders';

export type { DeleteOptions, Preconditions, PropagationPolicy };

export const PropagationPolicies = ['Orphan', 'Background', 'Foreground'] as const satisfies readonly PropagationPolicy[];

export const PreconditionsSchema = Type.Object({
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
});

export const DeleteOptionsSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  gracePeriodSeconds: Type.Optional(Int64({ minimum: 0 })),
  preconditions: Type.Optional(PreconditionsSchema),
  propagationPolicy: Type.Optional(StringEnum(PropagationPolicies)),
  orphanDependents: Type.Optional(Type.Boolean()),
  dryRun: Type.Optional(ListAtomic(StringEnum(['All'] as const))),
});

import { Type } from '@sinclair/typebox';
import type { DeleteOptions, Preconditions, PropagationPolicy } from '@svc/machinery';
import { describeFields, Int64, ListAtomic, StringEnum } from '../schema/builders';

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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  PreconditionsSchema,
  {
    uid: 'The object is deleted only if its uid is this one, so that a recreated object of the same name is left alone.',
    resourceVersion: 'The object is deleted only if it has not been written since this version.',
  },
  'Conditions a delete checks first; when one fails, the delete fails with a Conflict and nothing is removed.',
);
describeFields(DeleteOptionsSchema, {
  apiVersion: 'The group and version of this schema, such as `v1`.',
  kind: 'Always `DeleteOptions`.',
  gracePeriodSeconds:
    "How long the object has to end gracefully before it is removed: 0 removes it at once; left out, the kind's own default applies (a pod's terminationGracePeriodSeconds).",
  preconditions: 'Conditions the object must meet for the delete to go ahead.',
  propagationPolicy:
    'What becomes of the objects this one owns: Orphan leaves them, Background deletes the owner at once and lets the garbage collector delete them after, Foreground deletes them first. The kind decides when left out (Background for most).',
  orphanDependents: 'Deprecated, use propagationPolicy: true orphans the dependents, false lets them be deleted. Not with propagationPolicy.',
  dryRun: '`All` runs every step of the delete, admission included, without removing anything.',
});

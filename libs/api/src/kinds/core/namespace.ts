import { Type, type Static } from '@sinclair/typebox';
import { ListAtomic, ListMap, StringEnum } from '../../schema/builders';
import { kindConditionSchema, OptionalTime } from '../../meta/condition';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** The finalizer the namespace controller removes once the namespace's content is gone. */
export const NAMESPACE_FINALIZER = 'svc';

export const NamespacePhases = ['Active', 'Terminating'] as const;

export const NamespaceSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-label')),
  spec: Type.Optional(Type.Object({ finalizers: Type.Optional(ListAtomic(Type.String(), { default: [NAMESPACE_FINALIZER] })) }, { default: {} })),
  status: Type.Optional(
    Type.Object(
      {
        phase: Type.Optional(StringEnum(NamespacePhases, { default: 'Active' })),
        conditions: Type.Optional(ListMap(kindConditionSchema({ lastTransitionTime: OptionalTime() }), ['type'])),
      },
      { default: {} },
    ),
  ),
});
export type Namespace = Static<typeof NamespaceSchema>;
export type NamespaceList = List<Namespace>;

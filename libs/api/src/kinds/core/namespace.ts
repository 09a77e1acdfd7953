import { Type, type Static } from '@sinclair/typebox';
import { describeFields, ListAtomic, ListMap, StringEnum } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
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

// What `kubectl explain` says of each field, in this project's words.
const namespaceStatus = NamespaceSchema.properties.status;
describeFields(
  NamespaceSchema,
  {
    'spec.finalizers':
      "Cleanups to be done before the namespace is removed, changed only through the finalize subresource. The namespace controller deletes the namespace's content and then removes its own (`svc` on this server, `kubernetes` in Kubernetes).",
    'status.conditions': 'How the deletion of the namespace goes, when something holds it up.',
    'status.phase': 'Active, or Terminating from its deletion until its content is gone; nothing new may be made in a Terminating namespace.',
    ...conditionFieldDescriptions(
      (namespaceStatus.properties.conditions as unknown as { items: { properties: object } }).items,
      'How the deletion of the namespace goes: NamespaceDeletionDiscoveryFailure, NamespaceDeletionContentFailure, NamespaceDeletionGroupVersionParsingFailure, NamespaceContentRemaining or NamespaceFinalizersRemaining.',
      'status.conditions.',
    ),
  },
  'A scope for names, and for the permissions, quotas and policies of the objects in it.',
);

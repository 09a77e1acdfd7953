import { Type, type Static } from '@sinclair/typebox';
import { Int32 } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** The largest value a PriorityClass not of the system may have (Kubernetes' HighestUserDefinablePriority). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** The value of the system-cluster-critical class; system-node-critical is 1000 above. */
export const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
/** Names of this prefix are the system's: only its own classes, with their own values, may have one. */
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';
/** The priority of a pod that names no class when no class is the global default. */
export const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0;

export const PreemptionPolicies = ['PreemptLowerPriority', 'Never'] as const;

export const PriorityClassSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'scheduling.k8s.io/v1.' })),
    kind: Type.Optional(Type.String({ description: 'PriorityClass.' })),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    value: Int32({
      description: `The priority of the pods that name the class: higher is scheduled first and preempted last. At most ${HIGHEST_USER_DEFINABLE_PRIORITY} unless the class is the system's. It cannot change.`,
    }),
    globalDefault: Type.Optional(
      Type.Boolean({ description: 'Whether pods that name no class get this one. At most one class may be the default; no class is by default.' }),
    ),
    description: Type.Optional(Type.String({ description: 'What the class is for, in words for people.' })),
    preemptionPolicy: Type.Optional(
      Type.String({
        default: 'PreemptLowerPriority',
        description: 'Whether pods of the class may evict pods of lower priority to be placed: PreemptLowerPriority (the default) or Never. It cannot change.',
      }),
    ),
  },
  { description: 'A named pod priority: pods name the class and get its value (and preemption policy) at creation.' },
);
export type PriorityClass = Static<typeof PriorityClassSchema>;
export type PriorityClassList = List<PriorityClass>;

/** The classes every cluster has from its first start (Kubernetes' system priority classes). */
export const SYSTEM_PRIORITY_CLASSES: readonly PriorityClass[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    preemptionPolicy: 'PreemptLowerPriority',
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: SYSTEM_CRITICAL_PRIORITY,
    preemptionPolicy: 'PreemptLowerPriority',
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Int64, IntOrString, ListMap, StringEnum, StringMap, Time } from '../../schema/builders';
import { ConditionSchema } from '../../meta/condition';
import { DeleteOptionsSchema } from '../../meta/delete-options';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { PERCENT_PATTERN } from '../../meta/names';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

export const UnhealthyPodEvictionPolicies = ['IfHealthyBudget', 'AlwaysAllow'] as const;

/** An absolute number of pods (integers) or a percentage of them (strings). */
const IntOrPercent = () => IntOrString({ minimum: 0, pattern: PERCENT_PATTERN });

export const PodDisruptionBudgetSpecSchema = Type.Object({
  minAvailable: Type.Optional(IntOrPercent()),
  /** Unset selects no pods; an empty selector selects every pod of the namespace. */
  selector: Type.Optional(LabelSelectorSchema),
  maxUnavailable: Type.Optional(IntOrPercent()),
  unhealthyPodEvictionPolicy: Type.Optional(StringEnum(UnhealthyPodEvictionPolicies)),
});

export const PodDisruptionBudgetStatusSchema = Type.Object({
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  /** Pods whose eviction was granted but that the disruption controller has not seen go yet, with when. */
  disruptedPods: Type.Optional(StringMap(Time())),
  disruptionsAllowed: Int32({ minimum: 0 }),
  currentHealthy: Int32({ minimum: 0 }),
  desiredHealthy: Int32({ minimum: 0 }),
  expectedPods: Int32({ minimum: 0 }),
  conditions: Type.Optional(ListMap(ConditionSchema, ['type'])),
});

export const PodDisruptionBudgetSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  // Struct values in Go: always serialized.
  spec: Type.Optional(Type.Object(PodDisruptionBudgetSpecSchema.properties, { default: {} })),
  status: Type.Optional(PodDisruptionBudgetStatusSchema),
});
export type PodDisruptionBudget = Static<typeof PodDisruptionBudgetSchema>;
export type PodDisruptionBudgetList = List<PodDisruptionBudget>;

/** The body of a pod's `eviction` subresource: the pod named, and how to delete it. */
export const EvictionSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  deleteOptions: Type.Optional(DeleteOptionsSchema),
});
export type Eviction = Static<typeof EvictionSchema>;

/** The condition the disruption controller keeps on a budget, and its reasons. */
export const DISRUPTION_ALLOWED_CONDITION = 'DisruptionAllowed';
export const PDB_SUFFICIENT_PODS = 'SufficientPods';
export const PDB_INSUFFICIENT_PODS = 'InsufficientPods';
export const PDB_SYNC_FAILED = 'SyncFailed';

// What `kubectl explain` says of each field, in this project's words.
describeFields(PodDisruptionBudgetSpecSchema, {
  minAvailable: 'How many of the selected pods must still be available after an eviction: a number, or a percentage of them. Not with maxUnavailable.',
  selector: 'The pods the budget covers: none when left out, every pod of the namespace when empty.',
  maxUnavailable: 'How many of the selected pods may be unavailable after an eviction: a number, or a percentage of them. Not with minAvailable.',
  unhealthyPodEvictionPolicy:
    'When a running pod that is not ready may be evicted: IfHealthyBudget (only while the budget is met, the default) or AlwaysAllow (always).',
});
describeFields(PodDisruptionBudgetStatusSchema, {
  observedGeneration: 'The generation of the budget the disruption controller last acted on.',
  disruptedPods:
    'Pods whose eviction was allowed but that the disruption controller has not seen go yet, with when; the API server adds them, and they are dropped once gone or after two minutes.',
  disruptionsAllowed: 'How many pods may be evicted now.',
  currentHealthy: 'How many of the pods are healthy now.',
  desiredHealthy: 'How many of them must stay healthy.',
  expectedPods: 'How many pods the budget counts on: the replicas their controllers ask for.',
  conditions: 'DisruptionAllowed: whether an eviction would be allowed now, with why (SufficientPods, InsufficientPods, SyncFailed).',
});
(PodDisruptionBudgetSchema as { description?: string }).description =
  'A limit on how many of a set of pods voluntary disruptions (evictions, node drains) may take down at once.';
describeFields(
  EvictionSchema,
  { deleteOptions: 'How the pod is deleted once its eviction is allowed.' },
  "Asks to evict a pod: a delete that first checks the pod's disruption budgets and is refused (429) while they forbid it. The body of a POST to the pod's eviction subresource; never stored.",
);

import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, IntOrString, ListMap, StringEnum, StringMap, Time } from '../../schema/builders';
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

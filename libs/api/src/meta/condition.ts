import { Type, type TProperties } from '@sinclair/typebox';
import type { Condition, ConditionStatus } from '@svc/machinery';
import { Int64, StringEnum, Time } from '../schema/builders';

export const ConditionStatuses = ['True', 'False', 'Unknown'] as const satisfies readonly ConditionStatus[];
export type { Condition, ConditionStatus };

/** metav1.Condition, the shape new APIs and CRDs use. */
export const ConditionSchema = Type.Object({
  type: Type.String({ maxLength: 316 }),
  status: StringEnum(ConditionStatuses),
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  lastTransitionTime: Time(),
  reason: Type.String({ maxLength: 1024, minLength: 1 }),
  message: Type.String({ maxLength: 32768 }),
});

/**
 * The older per-kind condition shapes (PodCondition, DeploymentCondition, ...): type and status
 * required, then the kind's own timestamps.
 */
export function kindConditionSchema<P extends TProperties>(timestamps: P) {
  return Type.Object({
    type: Type.String(),
    status: StringEnum(ConditionStatuses),
    ...timestamps,
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
  });
}

export const OptionalTime = () => Type.Optional(Time());

import { Type, type TProperties } from '@sinclair/typebox';
import type { Condition, ConditionStatus } from '@svc/machinery';
import { describeFields, Int64, StringEnum, Time } from '../schema/builders';

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

// What `kubectl explain` says of each field, in this project's words.
const CONDITION_FIELDS = {
  status: 'True, False or Unknown.',
  observedGeneration: "The object's metadata.generation the condition was worked out for; lower than the current generation, the condition is out of date.",
  lastTransitionTime: 'When status last changed.',
  lastUpdateTime: 'When the condition was last written, whether status changed or not.',
  lastHeartbeatTime: 'When the node agent last reported the condition.',
  lastProbeTime: 'When the condition was last checked.',
  reason: 'Why status is what it is, as one CamelCase word that programs may match.',
  message: 'Why status is what it is, in words for people.',
};

/**
 * The descriptions of a condition's fields, `type` saying which conditions the object has, for
 * describeFields: every field the condition struct has, under `prefix` (`status.conditions.`).
 */
export function conditionFieldDescriptions(condition: { properties: object }, type: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = { [`${prefix}type`]: type };
  for (const name of Object.keys(condition.properties)) {
    const text = (CONDITION_FIELDS as Record<string, string>)[name];
    if (text !== undefined) out[`${prefix}${name}`] = text;
  }
  return out;
}

describeFields(
  ConditionSchema,
  {
    ...conditionFieldDescriptions(
      ConditionSchema,
      'What the condition is about, in CamelCase, such as `Ready`; a domain prefix (`example.com/Ready`) for conditions of its own.',
    ),
    reason: 'Why status is what it is, as one CamelCase word that programs may match. Never empty.',
  },
  "One aspect of an object's state: whether it holds (True, False or Unknown), since when and why.",
);

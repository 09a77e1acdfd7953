import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, ListAtomic, StringEnum, StringMap } from '../schema/builders';
import { LABEL_VALUE_MAX_LENGTH, LABEL_VALUE_PATTERN, QUALIFIED_NAME_PATTERN } from './names';

export const LabelSelectorOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

export const LabelSelectorRequirementSchema = Type.Object({
  key: Type.String({ pattern: QUALIFIED_NAME_PATTERN }),
  operator: StringEnum(LabelSelectorOperators),
  values: Type.Optional(ListAtomic(Type.String())),
});
export type LabelSelectorRequirement = Static<typeof LabelSelectorRequirementSchema>;

export const LabelSelectorSchema = Type.Object(
  {
    matchLabels: Type.Optional(
      StringMap(Type.String({ pattern: LABEL_VALUE_PATTERN, maxLength: LABEL_VALUE_MAX_LENGTH }), {
        propertyNames: { pattern: QUALIFIED_NAME_PATTERN },
      }),
    ),
    matchExpressions: Type.Optional(ListAtomic(LabelSelectorRequirementSchema)),
  },
  ATOMIC,
);
export type LabelSelector = Static<typeof LabelSelectorSchema>;

import { Type } from '@sinclair/typebox';
import type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from '@svc/machinery';
import { ATOMIC, ListAtomic, StringEnum, StringMap } from '../schema/builders';
import { LABEL_VALUE_MAX_LENGTH, LABEL_VALUE_PATTERN, QUALIFIED_NAME_PATTERN } from './names';

export type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement };

export const LabelSelectorOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const satisfies readonly LabelSelectorOperator[];

export const LabelSelectorRequirementSchema = Type.Object({
  key: Type.String({ pattern: QUALIFIED_NAME_PATTERN }),
  operator: StringEnum(LabelSelectorOperators),
  values: Type.Optional(ListAtomic(Type.String())),
});

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

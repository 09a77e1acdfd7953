import { Type } from '@sinclair/typebox';
import type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from '@svc/machinery';
import { ATOMIC, describeFields, ListAtomic, StringEnum, StringMap } from '../schema/builders';
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  LabelSelectorRequirementSchema,
  {
    key: 'The label key the requirement is about.',
    operator: 'In and NotIn compare the label value with values; Exists and DoesNotExist only ask whether the label is there.',
    values: 'The values In and NotIn compare with; at least one for them, none for Exists and DoesNotExist.',
  },
  'One condition on the labels of an object: a key, an operator and, for In and NotIn, values.',
);
describeFields(
  LabelSelectorSchema,
  {
    matchLabels: 'Labels the object must carry with exactly these values; each pair is the same as an In requirement with one value.',
    matchExpressions: 'Further conditions on labels, all of which must hold.',
  },
  'Which objects are meant, by their labels: every condition of matchLabels and matchExpressions must hold. An empty selector matches every object.',
);

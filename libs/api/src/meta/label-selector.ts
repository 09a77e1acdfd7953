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

/**
 * Whether `labels` satisfy `selector`. Needed here by cross-field validation (a Deployment's
 * selector must select its own template); the query-side selector language lives elsewhere.
 */
export function labelSelectorMatches(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const have = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (have[k] !== v) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const present = Object.prototype.hasOwnProperty.call(have, req.key);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!present || !values.includes(have[req.key])) return false;
        break;
      case 'NotIn':
        if (present && values.includes(have[req.key])) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
    }
  }
  return true;
}

/** True when the selector has neither labels nor expressions (it would select everything). */
export function labelSelectorIsEmpty(selector: LabelSelector | undefined): boolean {
  return !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
}

/** Kubernetes' selector string (`app=web,tier in (a,b),!legacy`); empty for an empty selector. */
export function labelSelectorToString(selector: LabelSelector | undefined): string {
  if (!selector) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const req of selector.matchExpressions ?? []) {
    const values = [...(req.values ?? [])].sort().join(',');
    switch (req.operator) {
      case 'In':
        parts.push(`${req.key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${req.key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(req.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${req.key}`);
        break;
    }
  }
  return parts.sort().join(',');
}

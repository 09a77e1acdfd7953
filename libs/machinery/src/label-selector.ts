import { FieldError, fieldForbidden, fieldInvalid, FieldPathLike, fieldRequired } from './field-errors';
import { FieldPath } from './field-path';
import { validateLabels } from './metadata-validation';
import type { LabelSelector, LabelSelectorRequirement } from './meta/label-selector';
import { isQualifiedName, isValidLabelValue } from './name-validation';

function toPath(path: FieldPathLike): FieldPath {
  return typeof path === 'string' ? FieldPath.root(path) : path;
}

/**
 * Validation of a LabelSelector inside an object: In/NotIn need values, Exists/DoesNotExist
 * take none, keys are qualified names and values label values.
 */
export function validateLabelSelector(selector: LabelSelector | null | undefined, path: FieldPathLike): FieldError[] {
  if (!selector) return [];
  const base = toPath(path);
  const errs: FieldError[] = validateLabels(selector.matchLabels, base.child('matchLabels'));
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    for (const err of validateLabelSelectorRequirement(expr, base.child('matchExpressions').index(i))) errs.push(err);
  });
  return errs;
}

export function validateLabelSelectorRequirement(requirement: LabelSelectorRequirement, path: FieldPathLike): FieldError[] {
  const base = toPath(path);
  const errs: FieldError[] = [];
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(fieldRequired(base.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(fieldForbidden(base.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      errs.push(fieldInvalid(base.child('operator'), requirement.operator, 'not a valid selector operator'));
  }
  for (const msg of isQualifiedName(requirement.key)) errs.push(fieldInvalid(base.child('key'), requirement.key, msg));
  values.forEach((v, i) => {
    for (const msg of isValidLabelValue(v)) errs.push(fieldInvalid(base.child('values').index(i), v, msg));
  });
  return errs;
}

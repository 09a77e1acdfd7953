import { FieldError, fieldInvalid, FieldPathLike, fieldTooLong } from './field-errors';
import { isQualifiedName, isValidLabelValue, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES, validateAnnotationsSize } from './name-validation';

/** `metadata.labels`: qualified-name keys, label values. */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: FieldPathLike): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(fieldInvalid(path, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(fieldInvalid(path, v, msg));
  }
  return errs;
}

/** `metadata.annotations`: qualified-name keys (case-insensitive), 256 KiB in total. */
export function validateAnnotations(annotations: Readonly<Record<string, string>> | undefined, path: FieldPathLike): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldInvalid(path, k, msg));
  }
  if (validateAnnotationsSize(annotations).length > 0) errs.push(fieldTooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

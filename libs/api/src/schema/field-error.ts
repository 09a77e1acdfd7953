/**
 * A validation failure on one field, in the vocabulary of Kubernetes' `field.Error`. The type
 * names are the `StatusCause.type` values a client sees in a 422 Status.
 */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  /** Kubernetes field path: `spec.template.spec.containers[0].name`, map keys as `data[key]`. */
  field: string;
  badValue?: unknown;
  detail: string;
}

export const fieldErrors = {
  required: (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail }),
  invalid: (field: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail }),
  typeInvalid: (field: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, badValue, detail }),
  notSupported: (field: string, badValue: unknown, supported: readonly unknown[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    badValue,
    detail: supported.length ? `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` : '',
  }),
  duplicate: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, badValue, detail: '' }),
  notFound: (field: string, badValue: unknown, detail = ''): FieldError => ({ type: 'FieldValueNotFound', field, badValue, detail }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail }),
  tooLong: (field: string, badValue: unknown, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field,
    badValue,
    detail: `must have at most ${max} bytes`,
  }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field,
    badValue: actual,
    detail: `must have at most ${max} items`,
  }),
};

function describeValue(value: unknown): string {
  if (value === undefined) return '<nil>';
  if (typeof value === 'string') return JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** One line as Kubernetes prints it: `spec.replicas: Invalid value: -1: must be greater than or equal to 0`. */
export function fieldErrorToString(error: FieldError): string {
  const tail = (text: string) => (error.detail ? `${text}: ${error.detail}` : text);
  const prefix = error.field ? `${error.field}: ` : '';
  switch (error.type) {
    case 'FieldValueRequired':
      return prefix + tail('Required value');
    case 'FieldValueNotFound':
      return prefix + tail(`Not found: ${describeValue(error.badValue)}`);
    case 'FieldValueDuplicate':
      return prefix + tail(`Duplicate value: ${describeValue(error.badValue)}`);
    case 'FieldValueNotSupported':
      return prefix + tail(`Unsupported value: ${describeValue(error.badValue)}`);
    case 'FieldValueForbidden':
      return prefix + tail('Forbidden');
    case 'FieldValueTooLong':
      return prefix + tail('Too long');
    case 'FieldValueTooMany':
      return prefix + tail(`Too many: ${describeValue(error.badValue)}`);
    case 'InternalError':
      return prefix + tail('Internal error');
    case 'FieldValueInvalid':
    case 'FieldValueTypeInvalid':
    default:
      return prefix + tail(`Invalid value: ${describeValue(error.badValue)}`);
  }
}

/** The summary line of a 422: `Deployment.apps "web" is invalid: [a, b]` (brackets only for several). */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const parts = errors.map(fieldErrorToString);
  return parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
}

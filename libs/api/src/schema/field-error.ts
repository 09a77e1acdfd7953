/**
 * Field errors are machinery's (`libs/machinery/src/field-errors.ts`); this module keeps the short
 * constructor names the kind definitions and the schema engine use.
 */
import {
  fieldDuplicate,
  fieldErrorMessage,
  fieldErrorsMessage,
  fieldForbidden,
  fieldInvalid,
  fieldNotFound,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  type FieldError,
} from '@svc/machinery';

export type { FieldError, FieldErrorType } from '@svc/machinery';

export const fieldErrors = {
  required: (field: string, detail = ''): FieldError => fieldRequired(field, detail),
  invalid: (field: string, badValue: unknown, detail: string): FieldError => fieldInvalid(field, badValue, detail),
  typeInvalid: (field: string, badValue: unknown, detail: string): FieldError => fieldTypeInvalid(field, badValue, detail),
  notSupported: (field: string, badValue: unknown, supported: readonly unknown[]): FieldError =>
    fieldNotSupported(
      field,
      badValue,
      supported.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
    ),
  duplicate: (field: string, badValue: unknown): FieldError => fieldDuplicate(field, badValue),
  notFound: (field: string, badValue: unknown): FieldError => fieldNotFound(field, badValue),
  forbidden: (field: string, detail: string): FieldError => fieldForbidden(field, detail),
  tooLong: (field: string, _badValue: unknown, max: number): FieldError => fieldTooLong(field, max),
  tooMany: (field: string, actual: number, max: number): FieldError => fieldTooMany(field, actual, max),
};

/** One line as Kubernetes prints it: `spec.replicas: Invalid value: -1: must be greater than or equal to 0`. */
export const fieldErrorToString = fieldErrorMessage;

/** The summary of a 422: one message bare, several as `[a, b]`. */
export const aggregateFieldErrors = fieldErrorsMessage;

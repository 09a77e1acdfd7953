import { FieldPath } from './field-path';
import { goQuote } from './go-quote';

/** Machine-readable kinds of field error; they double as the `reason` of a Status cause. */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/** One problem with one field of a request body or query. */
export interface FieldError {
  readonly type: FieldErrorType;
  /** Printed path, e.g. `spec.containers[0].name`. */
  readonly field: string;
  /** The offending value; `undefined` leaves it out of the message. */
  readonly badValue?: unknown;
  readonly detail: string;
}

export type FieldPathLike = FieldPath | string;

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** The human text of a field error type (`Required value`, `Invalid value`, ...). */
export function fieldErrorTypeText(type: FieldErrorType): string {
  return TYPE_TEXT[type];
}

function pathString(path: FieldPathLike): string {
  return typeof path === 'string' ? path : path.toString();
}

function make(type: FieldErrorType, path: FieldPathLike, badValue: unknown, detail: string): FieldError {
  return badValue === undefined ? { type, field: pathString(path), detail } : { type, field: pathString(path), badValue, detail };
}

export function fieldRequired(path: FieldPathLike, detail = ''): FieldError {
  return make('FieldValueRequired', path, undefined, detail);
}

export function fieldInvalid(path: FieldPathLike, value: unknown, detail: string): FieldError {
  return make('FieldValueInvalid', path, value, detail);
}

export function fieldTypeInvalid(path: FieldPathLike, value: unknown, detail: string): FieldError {
  return make('FieldValueTypeInvalid', path, value, detail);
}

export function fieldNotFound(path: FieldPathLike, value: unknown): FieldError {
  return make('FieldValueNotFound', path, value, '');
}

export function fieldDuplicate(path: FieldPathLike, value: unknown): FieldError {
  return make('FieldValueDuplicate', path, value, '');
}

export function fieldNotSupported(path: FieldPathLike, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return make('FieldValueNotSupported', path, value, detail);
}

export function fieldForbidden(path: FieldPathLike, detail: string): FieldError {
  return make('FieldValueForbidden', path, undefined, detail);
}

/**
 * The value is never echoed (Kubernetes keeps `<value omitted>` in its place): it is the thing that was
 * too long. The unit is always `bytes`, as Kubernetes prints it, even for a limit of 1.
 */
export function fieldTooLong(path: FieldPathLike, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} bytes` : 'value is too long';
  return make('FieldValueTooLong', path, undefined, detail);
}

/** A list with too many items; a negative count leaves the value out, a negative limit the number. */
export function fieldTooMany(path: FieldPathLike, actualQuantity: number, maxQuantity: number): FieldError {
  const detail = maxQuantity >= 0 ? `must have at most ${maxQuantity} items` : 'has too many items';
  return make('FieldValueTooMany', path, actualQuantity >= 0 ? actualQuantity : undefined, detail);
}

export function fieldInternalError(path: FieldPathLike, detail: string): FieldError {
  return make('InternalError', path, undefined, detail);
}

/**
 * A bad value printed exactly as given. Kubernetes prints some values with Go's `%#v` (a struct such
 * as an IntOrString); the validator that knows the Go type renders it, see {@link intOrStringValue}.
 */
export class RenderedValue {
  constructor(readonly text: string) {}

  toJSON(): string {
    return this.text;
  }
}

/**
 * An IntOrString as Kubernetes prints it in a field error: the Go struct (its String method takes a
 * pointer, so `%#v` of the value is what clients see), e.g. `intstr.IntOrString{Type:1, IntVal:0, StrVal:"50"}`.
 */
export function intOrStringValue(value: number | string): RenderedValue {
  return typeof value === 'number'
    ? new RenderedValue(`intstr.IntOrString{Type:0, IntVal:${value}, StrVal:""}`)
    : new RenderedValue(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(value)}}`);
}

function formatBadValue(value: unknown): string {
  if (value instanceof RenderedValue) return value.text;
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return goQuote(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
  }
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return `[]string{${value.map((v) => goQuote(v)).join(', ')}}`;
  }
  // JSON.stringify gives nothing for undefined, functions and symbols, and throws for cycles and bigints.
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // described below
  }
  return typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function' ? value.toString() : 'undefined';
}

/** The message of a field error without its path, as a Status cause carries it. */
export function fieldErrorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  const valueHidden =
    e.type === 'FieldValueRequired' ||
    e.type === 'FieldValueForbidden' ||
    e.type === 'FieldValueTooLong' ||
    e.type === 'InternalError' ||
    e.badValue === undefined;
  if (!valueHidden) s += `: ${formatBadValue(e.badValue)}`;
  if (e.detail.length > 0) s += `: ${e.detail}`;
  return s;
}

/** `<path>: <body>`, e.g. `metadata.name: Required value: name or generateName is required`. */
export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * Kubernetes' aggregate text for several messages: duplicates dropped, one message printed bare,
 * several wrapped as `[a, b]`, none as the empty string.
 */
export function aggregateMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  if (unique.length === 0) return '';
  if (unique.length === 1) return unique[0];
  return `[${unique.join(', ')}]`;
}

/** The aggregate message of a list of field errors. */
export function fieldErrorsMessage(errors: readonly FieldError[]): string {
  return aggregateMessages(errors.map(fieldErrorMessage));
}

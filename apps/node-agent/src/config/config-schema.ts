import { Type, type SchemaOptions } from '@sinclair/typebox';
import { Int32, Int64, StringEnum } from '@svc/api';

/** Go's duration syntax (`1m`, `1h30m`, `500ms`, `0`), as meta/v1.Duration reads it. */
export const GO_DURATION_PATTERN = '^[-+]?(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$';

export function Duration(defaultValue?: string, options: SchemaOptions = {}) {
  return Type.String({ ...options, pattern: GO_DURATION_PATTERN, ...(defaultValue === undefined ? {} : { default: defaultValue }) });
}

export function Bool(defaultValue?: boolean) {
  return Type.Boolean(defaultValue === undefined ? {} : { default: defaultValue });
}

export function Str(defaultValue?: string, options: SchemaOptions = {}) {
  return Type.String({ ...options, ...(defaultValue === undefined ? {} : { default: defaultValue }) });
}

export function I32(defaultValue?: number, options: SchemaOptions = {}) {
  return Int32({ ...options, ...(defaultValue === undefined ? {} : { default: defaultValue }) });
}

export function I64(defaultValue?: number, options: SchemaOptions = {}) {
  return Int64({ ...options, ...(defaultValue === undefined ? {} : { default: defaultValue }) });
}

export function Enum<const T extends readonly string[]>(values: T, defaultValue?: T[number]) {
  return StringEnum(values, defaultValue === undefined ? {} : { default: defaultValue });
}

/** A configuration kind's apiVersion and kind: optional on input, fixed when given. */
export function typeMeta(apiVersion: string, kind: string) {
  return {
    apiVersion: Type.Optional(Type.String({ enum: [apiVersion] })),
    kind: Type.Optional(Type.String({ enum: [kind] })),
  };
}

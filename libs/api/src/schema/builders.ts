import { Type, type Static, type TSchema, type TArray, type TObject, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';

/**
 * TypeBox helpers for the shapes Kubernetes types use. They emit plain JSON Schema (enum rather
 * than anyOf-of-const, additionalProperties maps rather than patternProperties) so that the
 * schema read by validation, defaulting and patching looks like the one a CRD author would write.
 */

export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

export function StringMap<V extends TSchema>(value: V, options: SchemaOptions = {}): TUnsafe<Record<string, Static<V>>> {
  return Type.Unsafe<Record<string, Static<V>>>({ ...options, type: 'object', additionalProperties: value });
}

/** A map of strings to strings, granular for apply unless `options` say otherwise. */
export function StringStringMap(options: SchemaOptions = {}): TUnsafe<Record<string, string>> {
  return StringMap(Type.String(), options);
}

/** Kubernetes' IntOrString: no `type`, the marker alone says integer or string (structural-schema style). */
export function IntOrString(options: SchemaOptions = {}): TUnsafe<number | string> {
  return Type.Unsafe<number | string>({ ...options, 'x-svc-int-or-string': true });
}

export const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** A resource quantity: a string such as `100m`/`1Gi`, or a plain number (the pattern only constrains strings). */
export function Quantity(options: SchemaOptions = {}): TUnsafe<string | number> {
  return Type.Unsafe<string | number>({ ...options, type: ['string', 'number'], pattern: QUANTITY_PATTERN });
}

/** RFC 3339 timestamp (metav1.Time and metav1.MicroTime). */
export function Time(options: SchemaOptions = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ ...options, type: 'string', format: 'date-time' });
}

export function Int32(options: SchemaOptions = {}) {
  return Type.Integer({ ...options, format: 'int32' });
}

export function Int64(options: SchemaOptions = {}) {
  return Type.Integer({ ...options, format: 'int64' });
}

/** An object whose content is not described; every field is kept. */
export function FreeForm(options: SchemaOptions = {}): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({ ...options, type: 'object', 'x-svc-preserve-unknown-fields': true });
}

/** Associative list: items are merged by their keys (strategic merge and apply alike). */
export function ListMap<T extends TSchema>(item: T, keys: readonly string[], options: SchemaOptions = {}): TArray<T> {
  return Type.Array(item, {
    'x-svc-patch-merge-key': keys[0],
    'x-svc-patch-strategy': 'merge',
    ...options,
    'x-svc-list-type': 'map',
    'x-svc-list-map-keys': [...keys],
  });
}

/** List of unique scalars merged as a set. */
export function ListSet<T extends TSchema>(item: T, options: SchemaOptions = {}): TArray<T> {
  return Type.Array(item, { 'x-svc-patch-strategy': 'merge', ...options, 'x-svc-list-type': 'set' });
}

/** List replaced as a whole. */
export function ListAtomic<T extends TSchema>(item: T, options: SchemaOptions = {}): TArray<T> {
  return Type.Array(item, { ...options, 'x-svc-list-type': 'atomic' });
}

/** Options for a struct that apply treats as one value (Kubernetes' `+structType=atomic`). */
export const ATOMIC: SchemaOptions = { 'x-svc-map-type': 'atomic' };

/**
 * A copy of a shared schema with a description of its own, typed as the schema: a spread of a
 * TypeBox schema carries its symbol keys in its type, which an exported declaration cannot name.
 */
export function DescribedAs<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}

/**
 * Gives each field of a struct its description (and the struct one of its own), as `kubectl explain`
 * shows them. Every field must be named: the compiler refuses a struct with a field left out. Each
 * field's schema is replaced by a copy that carries the text, so a shared schema used by several
 * fields is never changed; the struct keeps its `properties` object, which names it in OpenAPI.
 */
export function Described<T extends TObject>(schema: T, fields: { readonly [K in keyof T['properties']]: string }, description?: string): T {
  const properties = schema.properties as Record<string, TSchema>;
  for (const [name, text] of Object.entries<string>(fields)) {
    const field = properties[name];
    if (field === undefined) throw new Error(`no field ${name} to describe`);
    properties[name] = { ...field, description: text };
  }
  if (description !== undefined) (schema as { description?: string }).description = description;
  return schema;
}

/**
 * Describes fields by dotted path (`valueFrom.secretKeyRef.key`), through lists and maps to the
 * structs inside them, for structs declared inline. Like {@link Described}, each field's schema is
 * replaced by a copy carrying the text; `description`, when given, is the struct's own.
 */
export function describeFields(schema: TSchema, fields: Readonly<Record<string, string>>, description?: string): void {
  if (description !== undefined) (schema as { description?: string }).description = description;
  for (const [path, text] of Object.entries(fields)) {
    const names = path.split('.');
    let node = schema as Record<string, unknown>;
    for (const [i, name] of names.entries()) {
      while (node.properties === undefined && (node.items !== undefined || typeof node.additionalProperties === 'object')) {
        node = (node.items ?? node.additionalProperties) as Record<string, unknown>;
      }
      const properties = node.properties as Record<string, Record<string, unknown>> | undefined;
      const field = properties?.[name];
      if (properties === undefined || field === undefined) throw new Error(`no field ${path} to describe`);
      if (i === names.length - 1) properties[name] = { ...field, description: text };
      else node = field;
    }
  }
}

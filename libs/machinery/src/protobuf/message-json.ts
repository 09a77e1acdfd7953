import type { Field, Type } from 'protobufjs';
import { EnvelopeError } from './envelope';

/**
 * Converts between decoded protobuf messages of the Kubernetes schema and the JSON shape the same
 * object has in Kubernetes' JSON encoding, field by field from the schema's reflection, so one walk
 * serves every kind. How a field is treated follows the `(ptr)` and `(keep)` options documented in
 * kubernetes-schema.ts.
 */

type Json = Record<string, unknown>;

const TIME_TYPES = new Set(['Time', 'MicroTime']);

function isPointer(field: Field): boolean {
  return field.options?.['(ptr)'] === true;
}

function keepsZero(field: Field): boolean {
  return field.options?.['(keep)'] === true;
}

function has(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

// protobufjs hands int64 values back as Long objects when the long package is present.
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && 'toNumber' in value && typeof value.toNumber === 'function') {
    return (value as { toNumber(): number }).toNumber();
  }
  return Number(value);
}

// Applied to converted values: int64 is a number by then, bytes a base64 string.
function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

function zeroOf(field: Field): unknown {
  switch (field.type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return new Uint8Array(0);
    default:
      return 0;
  }
}

// ---- protobuf -> JSON ----

function scalarToJson(field: Field, value: unknown): unknown {
  if (field.type === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
  if (field.type === 'int64' || field.type === 'int32') return toNumber(value);
  return value;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function timeToJson(type: Type, message: Json): string | undefined {
  if (!has(message, 'seconds') && !has(message, 'nanos')) return undefined;
  const seconds = has(message, 'seconds') ? toNumber(message.seconds) : 0;
  const nanos = has(message, 'nanos') ? toNumber(message.nanos) : 0;
  const text = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const base = text.slice(0, 19);
  // Time is written to the second in JSON, MicroTime to the microsecond, as Kubernetes writes them.
  return type.name === 'MicroTime' ? `${base}.${pad(Math.floor(nanos / 1000), 6)}Z` : `${base}Z`;
}

function messageFieldToJson(field: Field, type: Type, value: unknown, present: boolean): unknown {
  if (TIME_TYPES.has(type.name)) return present ? timeToJson(type, value as Json) : undefined;
  if (type.name === 'Quantity') return present ? textOf((value as Json).string) : undefined;
  if (type.name === 'IntOrString') {
    if (!present) return undefined;
    const intOrString = value as Json;
    return toNumber(intOrString.type ?? 0) === 1 ? textOf(intOrString.strVal) : toNumber(intOrString.intVal ?? 0);
  }
  if (type.name === 'FieldsV1') {
    if (!present) return undefined;
    const raw = (value as Json).Raw;
    if (!(raw instanceof Uint8Array) || raw.length === 0) return {};
    try {
      return JSON.parse(Buffer.from(raw).toString('utf8')) as unknown;
    } catch {
      throw new EnvelopeError(`field ${field.name} does not hold JSON`);
    }
  }
  if (!present) return isPointer(field) ? undefined : {};
  return messageToJson(type, value as Json);
}

/** The JSON form of a decoded message (or of a plain object with the message's field names). */
export function messageToJson(type: Type, message: Json): Json {
  const json: Json = {};
  for (const field of type.fieldsArray) {
    const present = has(message, field.name) && message[field.name] !== null && message[field.name] !== undefined;
    const value = message[field.name];
    const nested = field.resolvedType as Type | null;
    let converted: unknown;
    if (field.map) {
      const entries = present ? Object.entries(value as Json) : [];
      if (entries.length > 0) {
        converted = Object.fromEntries(entries.map(([key, item]) => [key, nested ? messageFieldToJson(field, nested, item, true) : scalarToJson(field, item)]));
      }
    } else if (field.repeated) {
      const items = present ? (value as unknown[]) : [];
      if (items.length > 0) {
        converted = items.map((item) => (nested ? messageFieldToJson(field, nested, item, true) : scalarToJson(field, item)));
      }
    } else if (nested) {
      converted = messageFieldToJson(field, nested, value, present);
    } else if (isPointer(field)) {
      if (present) converted = scalarToJson(field, value);
    } else if (keepsZero(field)) {
      converted = scalarToJson(field, present ? value : zeroOf(field));
    } else if (present) {
      const scalar = scalarToJson(field, value);
      if (!isZero(scalar)) converted = scalar;
    }
    if (converted !== undefined) json[field.name] = converted;
  }
  return json;
}

// ---- JSON -> protobuf ----

function fail(path: string, expected: string): never {
  throw new EnvelopeError(`${path}: expected ${expected}`);
}

function scalarFromJson(field: Field, value: unknown, path: string): unknown {
  switch (field.type) {
    case 'string':
      return typeof value === 'string' ? value : fail(path, 'a string');
    case 'bool':
      return typeof value === 'boolean' ? value : fail(path, 'a boolean');
    case 'bytes':
      return typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : fail(path, 'a base64 string');
    default:
      return typeof value === 'number' && Number.isInteger(value) ? value : fail(path, 'an integer');
  }
}

const TIME_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

function timeFromJson(value: unknown, path: string): Json {
  const match = typeof value === 'string' ? TIME_PATTERN.exec(value) : null;
  if (!match) return fail(path, 'an RFC 3339 time');
  const millis = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(millis)) return fail(path, 'an RFC 3339 time');
  const nanos = match[2] ? Number(match[2].padEnd(9, '0')) : 0;
  const time: Json = { seconds: Math.floor(millis / 1000) };
  if (nanos !== 0) time.nanos = nanos;
  return time;
}

function messageFieldFromJson(type: Type, value: unknown, path: string): Json {
  if (TIME_TYPES.has(type.name)) return timeFromJson(value, path);
  if (type.name === 'Quantity') return typeof value === 'string' || typeof value === 'number' ? { string: String(value) } : fail(path, 'a quantity');
  if (type.name === 'IntOrString') {
    if (typeof value === 'string') return { type: 1, intVal: 0, strVal: value };
    if (typeof value === 'number' && Number.isInteger(value)) return { type: 0, intVal: value, strVal: '' };
    return fail(path, 'an integer or a string');
  }
  if (type.name === 'FieldsV1') return { Raw: new Uint8Array(Buffer.from(JSON.stringify(value), 'utf8')) };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(path, 'an object');
  return messageFromJson(type, value as Json, path);
}

// What Kubernetes' marshaller writes for a struct value that holds nothing.
function emptyMessage(type: Type): Json {
  if (type.name === 'IntOrString') return { type: 0, intVal: 0, strVal: '' };
  if (TIME_TYPES.has(type.name)) return {};
  return messageFromJson(type, {}, '');
}

/**
 * The plain protobuf object for a JSON object, ready for `type.encode`. Fields are set as Kubernetes'
 * marshaller sets them (value fields always, pointers when present, map keys sorted), so the encoding
 * matches a Kubernetes client's byte for byte. JSON fields the message does not declare are dropped.
 */
export function messageFromJson(type: Type, json: Json, path = ''): Json {
  const message: Json = {};
  for (const field of type.fieldsArray) {
    const fieldPath = path === '' ? field.name : `${path}.${field.name}`;
    const value = json[field.name];
    const present = value !== undefined && value !== null;
    const nested = field.resolvedType as Type | null;
    if (field.map) {
      if (!present) continue;
      if (typeof value !== 'object' || Array.isArray(value)) fail(fieldPath, 'an object');
      const keys = Object.keys(value).sort();
      message[field.name] = Object.fromEntries(
        keys.map((key) => {
          const item = (value as Json)[key];
          const itemPath = `${fieldPath}.${key}`;
          return [key, nested ? messageFieldFromJson(nested, item, itemPath) : scalarFromJson(field, item, itemPath)];
        }),
      );
    } else if (field.repeated) {
      if (!present) continue;
      if (!Array.isArray(value)) fail(fieldPath, 'an array');
      message[field.name] = (value as unknown[]).map((item, index) =>
        nested ? messageFieldFromJson(nested, item, `${fieldPath}[${index}]`) : scalarFromJson(field, item, `${fieldPath}[${index}]`),
      );
    } else if (nested) {
      if (present) message[field.name] = messageFieldFromJson(nested, value, fieldPath);
      else if (!isPointer(field)) message[field.name] = emptyMessage(nested);
    } else if (present) {
      message[field.name] = scalarFromJson(field, value, fieldPath);
    } else if (!isPointer(field)) {
      message[field.name] = zeroOf(field);
    }
  }
  return message;
}

/** A protobuf string field as JSON: absent is empty. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

import { goQuote } from '../go-quote';
import { JsonValue, isJsonObject } from '../patch';
import { compareStrings, goJson, valueToString } from './go-json';

/** One key field of an associative-list element: `{"name":"nginx"}` has one. */
export type KeyField = readonly [name: string, value: JsonValue];

/**
 * One step of a field path, as structured-merge-diff names them: a struct or map field, the key
 * of an element of an associative list, the value of an element of a set, or a list index.
 */
export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly KeyField[] }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

export type FieldSetPath = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

/** A key element; its fields are kept sorted by name, as Kubernetes serializes them. */
export function keyElement(fields: readonly KeyField[]): PathElement {
  return { kind: 'key', fields: [...fields].sort((a, b) => compareStrings(a[0], b[0])) };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value };
}

/** The element's key in a fieldsV1 object: `f:name`, `k:{"name":"x"}`, `v:"x"`, `i:0`. */
export function pathElementKey(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map(([name, value]) => `${goJson(name)}:${goJson(value)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Parses a fieldsV1 key; throws an Error naming the key when it is not one. */
export function parsePathElementKey(text: string): PathElement {
  const body = text.slice(2);
  switch (text.slice(0, 2)) {
    case 'f:':
      return fieldElement(body);
    case 'k:': {
      const parsed = parseJson(body, text);
      if (!isJsonObject(parsed) || Object.keys(parsed).length === 0) {
        throw new Error(`invalid key path element ${JSON.stringify(text)}: expected a non-empty object`);
      }
      return keyElement(Object.keys(parsed).map((name) => [name, parsed[name]] as const));
    }
    case 'v:':
      return valueElement(parseJson(body, text));
    case 'i:':
      if (!/^(0|[1-9][0-9]*)$/.test(body)) throw new Error(`invalid index path element ${JSON.stringify(text)}`);
      return { kind: 'index', index: Number(body) };
    default:
      throw new Error(`unknown path element ${JSON.stringify(text)}`);
  }
}

function parseJson(body: string, text: string): JsonValue {
  try {
    return JSON.parse(body) as JsonValue;
  } catch {
    throw new Error(`invalid path element ${JSON.stringify(text)}: not JSON`);
  }
}

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** structured-merge-diff's total order: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index':
      return Math.sign(a.index - (b as typeof a).index);
  }
}

function compareKeyFields(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const byName = compareStrings(a[i][0], b[i][0]);
    if (byName !== 0) return byName;
    const byValue = compareValues(a[i][1], b[i][1]);
    if (byValue !== 0) return byValue;
  }
}

function rank(value: JsonValue): number {
  if (typeof value === 'number') return 0;
  if (typeof value === 'string') return 1;
  if (typeof value === 'boolean') return 2;
  if (Array.isArray(value)) return 3;
  if (value === null) return 5;
  return 4;
}

/** structured-merge-diff's value order: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number') return Math.sign(a - (b as number));
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (typeof a === 'boolean') return Number(a) - Number(b);
  if (Array.isArray(a)) {
    const other = b as JsonValue[];
    for (let i = 0; ; i++) {
      if (i >= a.length && i >= other.length) return 0;
      if (i >= a.length) return -1;
      if (i >= other.length) return 1;
      const c = compareValues(a[i], other[i]);
      if (c !== 0) return c;
    }
  }
  if (a === null) return 0;
  const left = a as Record<string, JsonValue>;
  const right = b as Record<string, JsonValue>;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort(compareStrings);
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(right, key)) return -1;
    if (!Object.prototype.hasOwnProperty.call(left, key)) return 1;
    const c = compareValues(left[key], right[key]);
    if (c !== 0) return c;
  }
  return 0;
}

/** A path as Kubernetes prints it in conflicts: `.spec.containers[name="nginx"].image`. */
export function formatFieldPath(path: FieldSetPath): string {
  let out = '';
  for (const pe of path) {
    switch (pe.kind) {
      case 'field':
        out += `.${pe.name}`;
        break;
      case 'key':
        out += `[${pe.fields.map(([name, value]) => `${name}=${valueToString(value, goQuote)}`).join(',')}]`;
        break;
      case 'value':
        out += `[=${valueToString(pe.value, goQuote)}]`;
        break;
      case 'index':
        out += `[${pe.index}]`;
        break;
    }
  }
  return out;
}

import { Reader, Writer } from 'protobufjs';
import { kubernetesGroupName } from '../group-names';
import { EnvelopeError } from './envelope';
import table from './kubernetes-messages.json';
import later from './kubernetes-messages-later.json';

/**
 * Kubernetes' protobuf encoding of its API objects, read and written field by field from the table
 * in kubernetes-messages.json (extracted from Kubernetes' generated.proto files and the Go types they
 * come from, see libs/api/src/kinds/testing/extract-kubernetes-protobuf-fields.js), and the fields of
 * later releases the served schemas carry (kubernetes-messages-later.json). The bytes are the
 * ones Kubernetes' gogo-protobuf marshallers write:
 * - fields in number order; repeated scalars unpacked; map entries sorted by key, key and value both written;
 * - a Go value field (no `*`) always, zero or not; a pointer, a slice, a map or a `[]byte` only when set;
 * - Time as seconds (zero time: an empty message), MicroTime with microseconds, Quantity as its string,
 *   IntOrString as type, int and string, RawExtension and FieldsV1 as their raw JSON, Duration as nanoseconds.
 * The JSON is the one Go's encoding/json writes for the same struct: `omitempty` zero values left
 * out, inlined structs merged into their parent, value structs always present; `null` is left out.
 */

type Json = Record<string, unknown>;

type Special = 'time' | 'microtime' | 'duration' | 'rawjson' | 'quantity' | 'intorstring';

interface FieldEntry {
  name: string;
  id: number;
  type: string;
  rule?: string;
  key?: string;
  json?: string;
  inline?: boolean;
  omitempty?: boolean;
  ptr?: boolean;
  /** The Kubernetes release that added the field, for fields newer than the table's release. */
  since?: string;
}

interface MessageEntry {
  special?: string;
  list?: boolean;
  kind?: boolean;
  fields: FieldEntry[];
}

interface MessageTable {
  source: Record<string, string>;
  packages: Record<string, { group: string; version: string }>;
  messages: Record<string, MessageEntry>;
}

interface LaterFields {
  fields: Record<string, FieldEntry[]>;
  messages: Record<string, MessageEntry>;
}

/**
 * The table with the fields Kubernetes added after its release (kubernetes-messages-later.json)
 * that the served schemas carry: without them a protobuf reader or writer would drop those fields
 * where JSON keeps them.
 */
function withLaterFields(base: MessageTable, added: LaterFields): MessageTable {
  const messages: Record<string, MessageEntry> = { ...base.messages, ...added.messages };
  for (const [name, fields] of Object.entries(added.fields)) {
    const entry = messages[name];
    if (!entry) throw new Error(`kubernetes-messages-later.json adds fields to unknown message ${name}`);
    messages[name] = { ...entry, fields: [...entry.fields, ...fields] };
  }
  return { ...base, messages };
}

const TABLE = withLaterFields(table, later);

const META_PACKAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** The deepest nesting of messages a body may have; Kubernetes' own types stay far below it. */
const MAX_DEPTH = 100;

const SCALAR_WIRE: Readonly<Record<string, number>> = {
  string: 2,
  bytes: 2,
  bool: 0,
  int32: 0,
  int64: 0,
  uint32: 0,
  uint64: 0,
  double: 1,
  float: 5,
};

interface Field {
  name: string;
  id: number;
  /** The JSON key; undefined for an inlined struct and for a field JSON does not show. */
  json: string | undefined;
  inline: boolean;
  omitempty: boolean;
  ptr: boolean;
  /**
   * A value field newer than the table's release: written only when not zero, so that an object
   * without it encodes to the same bytes as in that release (a newer Kubernetes writes its zero; both
   * read back the same).
   */
  sparse: boolean;
  rule: 'single' | 'repeated' | 'map';
  /** A scalar's protobuf type, or undefined for a message. */
  scalar: string | undefined;
  messageName: string | undefined;
  wireType: number;
}

/** One message of the table, compiled: its fields in Go order (JSON) and in number order (wire). */
export interface KubernetesMessage {
  readonly name: string;
  readonly special: Special | undefined;
  readonly list: boolean;
  readonly fields: readonly Field[];
  readonly byNumber: readonly Field[];
  readonly byId: ReadonlyMap<number, Field>;
}

const compiled = new Map<string, KubernetesMessage>();

/** The compiled message of a fully qualified name (`k8s.io.api.core.v1.Pod`); undefined when the table lacks it. */
export function kubernetesMessage(name: string): KubernetesMessage | undefined {
  const known = compiled.get(name);
  if (known) return known;
  const entry = TABLE.messages[name];
  if (!entry) return undefined;
  const fields = entry.fields.map((f): Field => {
    const scalar = SCALAR_WIRE[f.type] !== undefined ? f.type : undefined;
    const rule = f.rule === 'map' ? 'map' : f.rule === 'repeated' ? 'repeated' : 'single';
    return {
      name: f.name,
      id: f.id,
      json: f.inline || f.json === '-' ? undefined : (f.json ?? f.name),
      inline: f.inline === true,
      omitempty: f.omitempty === true,
      ptr: f.ptr === true,
      sparse: f.since !== undefined && f.ptr !== true,
      rule,
      scalar,
      messageName: scalar === undefined ? f.type : undefined,
      wireType: rule === 'map' || scalar === undefined ? 2 : SCALAR_WIRE[scalar],
    };
  });
  const message: KubernetesMessage = {
    name,
    special: entry.special as Special | undefined,
    list: entry.list === true,
    fields,
    byNumber: [...fields].sort((a, b) => a.id - b.id),
    byId: new Map(fields.map((f) => [f.id, f])),
  };
  compiled.set(name, message);
  return message;
}

function messageOf(field: Field): KubernetesMessage {
  const message = field.messageName === undefined ? undefined : kubernetesMessage(field.messageName);
  if (!message) throw new Error(`the protobuf table lacks message ${field.messageName} of field ${field.name}`);
  return message;
}

// ---- kinds ----

interface KindIndex {
  byGroupVersionKind: Map<string, string>;
  kinds: Array<{ apiVersion: string; kind: string; message: string }>;
}

let kindIndex: KindIndex | undefined;

function index(): KindIndex {
  if (kindIndex) return kindIndex;
  const byGroupVersionKind = new Map<string, string>();
  const kinds: KindIndex['kinds'] = [];
  for (const [name, entry] of Object.entries(TABLE.messages)) {
    const dot = name.lastIndexOf('.');
    const kind = name.slice(dot + 1);
    if (name.slice(0, dot) === META_PACKAGE) {
      // Status and the options, registered in every group version; listed once, under v1.
      if (entry.kind) kinds.push({ apiVersion: 'v1', kind, message: name });
      continue;
    }
    const pkg = TABLE.packages[name.slice(0, dot)];
    if (!pkg) continue;
    byGroupVersionKind.set(`${pkg.group}/${pkg.version}/${kind}`, name);
    if (entry.kind) kinds.push({ apiVersion: pkg.group === '' ? pkg.version : `${pkg.group}/${pkg.version}`, kind, message: name });
  }
  kindIndex = { byGroupVersionKind, kinds };
  return kindIndex;
}

/**
 * The message of an object of `apiVersion` and `kind`, as Kubernetes' scheme finds it: the kind of
 * that group version (a `*.svc.io` group is its `*.k8s.io` twin), else meta/v1's kinds registered in
 * every group version (Status, WatchEvent, DeleteOptions and the other options). Undefined for
 * anything else, custom resources among them.
 */
export function kubernetesMessageNameFor(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const kubernetesGroup = kubernetesGroupName(group) ?? group;
  const own = index().byGroupVersionKind.get(`${kubernetesGroup}/${version}/${kind}`);
  if (own) return own;
  const meta = `${META_PACKAGE}.${kind}`;
  return TABLE.messages[meta] ? meta : undefined;
}

/** Every object kind of the table's group versions (`apiVersion` under Kubernetes' group names). */
export function kubernetesKinds(): ReadonlyArray<{ apiVersion: string; kind: string; message: string }> {
  return index().kinds;
}

/** The Kubernetes sources the table was extracted from. */
export function kubernetesMessageSource(): Readonly<Record<string, string>> {
  return TABLE.source;
}

// ---- JSON -> protobuf ----

function fail(path: string, expected: string): never {
  throw new EnvelopeError(`${path || 'the object'}: expected ${expected}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Go's sort.Strings: byte order of the UTF-8 encodings. */
function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function writeScalar(w: Writer, type: string, value: unknown, path: string): void {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') fail(path, 'a string');
      w.string(value);
      return;
    case 'bytes':
      if (typeof value !== 'string') fail(path, 'a base64 string');
      w.bytes(Buffer.from(value, 'base64'));
      return;
    case 'bool':
      if (typeof value !== 'boolean') fail(path, 'a boolean');
      w.bool(value);
      return;
    case 'double':
    case 'float':
      if (typeof value !== 'number') fail(path, 'a number');
      if (type === 'double') w.double(value);
      else w.float(value);
      return;
    default:
      if (typeof value !== 'number' || !Number.isInteger(value)) fail(path, 'an integer');
      if (type === 'int32') w.int32(value);
      else if (type === 'uint32') w.uint32(value);
      else if (type === 'uint64') w.uint64(value);
      else w.int64(value);
  }
}

function zeroScalar(type: string): unknown {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    default:
      return 0;
  }
}

function tag(w: Writer, id: number, wireType: number): void {
  w.uint32((id << 3) | wireType);
}

/** Writes the body of one message (no tag, no length) for its JSON value; `undefined` is the Go zero value. */
function writeBody(w: Writer, message: KubernetesMessage, value: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) fail(path, `at most ${MAX_DEPTH} levels of nesting`);
  if (message.special) {
    writeSpecial(w, message.special, value, path);
    return;
  }
  if (message.list) {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) fail(path, 'an array');
    const items = message.byNumber[0];
    value.forEach((item, i) => {
      tag(w, items.id, items.wireType);
      writeScalar(w, items.scalar ?? 'string', item, `${path}[${i}]`);
    });
    return;
  }
  const json: Json = value === undefined || value === null ? {} : isObject(value) ? value : fail(path, 'an object');
  for (const field of message.byNumber) writeField(w, field, json, path, depth);
}

function writeField(w: Writer, field: Field, json: Json, path: string, depth: number): void {
  const fieldPath = field.json === undefined ? path : path === '' ? field.json : `${path}.${field.json}`;
  const raw = field.inline ? json : field.json === undefined ? undefined : json[field.json];
  const value = raw === null ? undefined : raw;
  if (field.rule === 'map') {
    if (value === undefined) return;
    if (!isObject(value)) fail(fieldPath, 'an object');
    const valueField: Field = { ...field, rule: 'single', id: 2, ptr: false };
    for (const key of Object.keys(value).sort(compareUtf8)) {
      tag(w, field.id, 2);
      w.fork();
      tag(w, 1, 2);
      w.string(key);
      const item = value[key];
      const itemPath = `${fieldPath}.${key}`;
      if (field.scalar !== undefined) {
        tag(w, 2, valueField.wireType);
        writeScalar(w, field.scalar, item === null || item === undefined ? zeroScalar(field.scalar) : item, itemPath);
      } else {
        tag(w, 2, 2);
        w.fork();
        writeBody(w, messageOf(field), item === null ? undefined : item, itemPath, depth + 1);
        w.ldelim();
      }
      w.ldelim();
    }
    return;
  }
  if (field.rule === 'repeated') {
    if (value === undefined) return;
    if (!Array.isArray(value)) fail(fieldPath, 'an array');
    value.forEach((item, i) => {
      const itemPath = `${fieldPath}[${i}]`;
      tag(w, field.id, field.wireType);
      if (field.scalar !== undefined) {
        writeScalar(w, field.scalar, item === null || item === undefined ? zeroScalar(field.scalar) : item, itemPath);
      } else {
        w.fork();
        writeBody(w, messageOf(field), item === null ? undefined : item, itemPath, depth + 1);
        w.ldelim();
      }
    });
    return;
  }
  if (field.scalar !== undefined) {
    // A `[]byte` is nil unless set, as a pointer is.
    if (value === undefined && (field.ptr || field.scalar === 'bytes')) return;
    if (field.sparse && (value === undefined || isZero(value))) return;
    tag(w, field.id, field.wireType);
    writeScalar(w, field.scalar, value === undefined ? zeroScalar(field.scalar) : value, fieldPath);
    return;
  }
  if (value === undefined && field.ptr) return;
  const message = messageOf(field);
  // A list wrapper (`type ExtraValue []string`) is a slice: nil unless set.
  if (value === undefined && message.list) return;
  tag(w, field.id, 2);
  w.fork();
  writeBody(w, message, value, fieldPath, depth + 1);
  w.ldelim();
}

const TIME_PATTERN = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Seconds and nanoseconds of an RFC 3339 time, as Go's time.Parse(time.RFC3339, ...) reads it. */
function parseTime(value: unknown, path: string): { seconds: number; nanos: number } {
  const match = typeof value === 'string' ? TIME_PATTERN.exec(value) : null;
  if (!match) return fail(path, 'an RFC 3339 time');
  const zone = match[4].toUpperCase();
  const millis = Date.parse(`${match[1]}T${match[2]}${zone}`);
  if (Number.isNaN(millis)) return fail(path, 'an RFC 3339 time');
  return { seconds: Math.floor(millis / 1000), nanos: match[3] ? Number(match[3].padEnd(9, '0')) : 0 };
}

function writeSpecial(w: Writer, special: Special, value: unknown, path: string): void {
  const absent = value === undefined || value === null;
  switch (special) {
    case 'time':
    case 'microtime': {
      // The zero time (null in JSON) is an empty message.
      if (absent) return;
      const { seconds, nanos } = parseTime(value, path);
      tag(w, 1, 0);
      w.int64(seconds);
      tag(w, 2, 0);
      w.int32(special === 'microtime' ? nanos - (nanos % 1000) : 0);
      return;
    }
    case 'quantity': {
      // The zero Quantity is written as "0", as its String() says.
      const text = absent ? '0' : typeof value === 'string' ? value : typeof value === 'number' ? String(value) : fail(path, 'a quantity');
      tag(w, 1, 2);
      w.string(text);
      return;
    }
    case 'intorstring': {
      const isString = typeof value === 'string';
      if (!absent && !isString && !(typeof value === 'number' && Number.isInteger(value))) fail(path, 'an integer or a string');
      tag(w, 1, 0);
      w.int64(isString ? 1 : 0);
      tag(w, 2, 0);
      w.int32(isString || absent ? 0 : value);
      tag(w, 3, 2);
      w.string(isString ? value : '');
      return;
    }
    case 'rawjson':
      if (absent) return;
      tag(w, 1, 2);
      w.bytes(Buffer.from(JSON.stringify(value), 'utf8'));
      return;
    case 'duration':
      tag(w, 1, 0);
      w.int64(absent ? 0 : parseGoDuration(value, path));
      return;
  }
}

/** Encodes one message of the table from its JSON form. */
export function encodeKubernetesMessage(name: string, json: Json): Uint8Array {
  const message = kubernetesMessage(name);
  if (!message) throw new EnvelopeError(`no protobuf message ${name}`, 'UnsupportedMediaType');
  const w = Writer.create();
  writeBody(w, message, json, '', 0);
  return w.finish();
}

// ---- fields a message does not carry ----

/** One message's JSON keys, inlined structs' keys merged in, each with the field that holds its value. */
const jsonKeysOf = new Map<string, ReadonlyMap<string, Field>>();

function jsonKeys(message: KubernetesMessage): ReadonlyMap<string, Field> {
  let keys = jsonKeysOf.get(message.name);
  if (keys) return keys;
  const built = new Map<string, Field>();
  for (const field of message.fields) {
    if (field.inline) {
      const inner = messageOf(field);
      if (!inner.special && !inner.list) for (const [key, innerField] of jsonKeys(inner)) built.set(key, innerField);
    } else if (field.json !== undefined) {
      built.set(field.json, field);
    }
  }
  keys = built;
  jsonKeysOf.set(message.name, keys);
  return keys;
}

function collectUnknown(
  message: KubernetesMessage,
  value: unknown,
  path: string,
  out: string[],
  limit: number,
  depth: number,
  skip?: ReadonlySet<string>,
): void {
  if (out.length >= limit || depth > MAX_DEPTH || message.special || message.list || !isObject(value)) return;
  const keys = jsonKeys(message);
  for (const [key, item] of Object.entries(value)) {
    if (out.length >= limit) return;
    if (skip?.has(key) || item === null || item === undefined) continue;
    const itemPath = path === '' ? key : `${path}.${key}`;
    const field = keys.get(key);
    if (!field) {
      out.push(itemPath);
      continue;
    }
    if (field.scalar !== undefined) continue;
    const inner = messageOf(field);
    if (field.rule === 'map') {
      if (isObject(item)) for (const [k, v] of Object.entries(item)) collectUnknown(inner, v, `${itemPath}.${k}`, out, limit, depth + 1);
    } else if (field.rule === 'repeated') {
      if (Array.isArray(item)) item.forEach((v, i) => collectUnknown(inner, v, `${itemPath}[${i}]`, out, limit, depth + 1));
    } else {
      collectUnknown(inner, item, itemPath, out, limit, depth + 1);
    }
  }
}

/**
 * The paths of the JSON fields (up to `limit`) that message `name` has no field for: what an encode
 * would leave out. Empty when the protobuf form carries everything the JSON says. `skip` names
 * top-level keys to pass over (an object's apiVersion and kind, which travel in the envelope).
 */
export function kubernetesMessageUnknownFields(name: string, json: Json, limit = 10, skip?: ReadonlySet<string>): string[] {
  const message = kubernetesMessage(name);
  if (!message) throw new EnvelopeError(`no protobuf message ${name}`, 'UnsupportedMediaType');
  const out: string[] = [];
  collectUnknown(message, json, '', out, limit, 0, skip);
  return out;
}

// ---- protobuf -> JSON ----

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && 'toNumber' in value && typeof value.toNumber === 'function') {
    return (value as { toNumber(): number }).toNumber();
  }
  return Number(value);
}

function readScalar(r: Reader, type: string): unknown {
  switch (type) {
    case 'string':
      return r.string();
    case 'bytes':
      return r.bytes();
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'uint32':
      return r.uint32();
    case 'int64':
      return toNumber(r.int64());
    case 'uint64':
      return toNumber(r.uint64());
    case 'double':
      return r.double();
    case 'float':
      return r.float();
    default:
      throw new EnvelopeError(`unknown scalar type ${type}`);
  }
}

/** A scalar's JSON value: bytes as base64. */
function scalarJson(type: string, value: unknown): unknown {
  return type === 'bytes' ? Buffer.from(value as Uint8Array).toString('base64') : value;
}

function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false || (value instanceof Uint8Array && value.length === 0);
}

/** Reads one message body into the values of its fields, by field (last one wins for a single field). */
function readFields(message: KubernetesMessage, bytes: Uint8Array, path: string, depth: number): Map<Field, unknown> {
  if (depth > MAX_DEPTH) throw new EnvelopeError(`${path}: nested more than ${MAX_DEPTH} levels deep`);
  const values = new Map<Field, unknown>();
  const r = Reader.create(bytes);
  while (r.pos < r.len) {
    const key = r.uint32();
    const id = key >>> 3;
    const wireType = key & 7;
    const field = message.byId.get(id);
    if (!field) {
      r.skipType(wireType);
      continue;
    }
    const fieldPath = `${path}.${field.json ?? field.name}`;
    if (field.rule === 'map') {
      if (wireType !== 2) throw wrongWireType(fieldPath, wireType);
      const entry = r.bytes();
      const [k, v] = readMapEntry(field, entry, fieldPath, depth);
      const map = (values.get(field) as Json | undefined) ?? {};
      map[k] = v;
      values.set(field, map);
      continue;
    }
    if (field.scalar !== undefined) {
      const items = field.rule === 'repeated' ? ((values.get(field) as unknown[] | undefined) ?? []) : undefined;
      if (items && wireType === 2 && field.wireType !== 2) {
        // A packed list, which Go's unmarshaller also reads.
        const end = r.uint32() + r.pos;
        while (r.pos < end) items.push(readScalar(r, field.scalar));
      } else {
        if (wireType !== field.wireType) throw wrongWireType(fieldPath, wireType);
        const value = readScalar(r, field.scalar);
        if (items) items.push(value);
        else values.set(field, value);
      }
      if (items) values.set(field, items);
      continue;
    }
    if (wireType !== 2) throw wrongWireType(fieldPath, wireType);
    const body = r.bytes();
    const value = readBody(messageOf(field), body, fieldPath, depth + 1);
    if (field.rule === 'repeated') {
      const items = (values.get(field) as unknown[] | undefined) ?? [];
      items.push(value);
      values.set(field, items);
    } else {
      values.set(field, value);
    }
  }
  return values;
}

function wrongWireType(path: string, wireType: number): EnvelopeError {
  return new EnvelopeError(`${path}: wrong wire type ${wireType}`);
}

function readMapEntry(field: Field, bytes: Uint8Array, path: string, depth: number): [string, unknown] {
  const r = Reader.create(bytes);
  let key = '';
  let value: unknown;
  while (r.pos < r.len) {
    const tagValue = r.uint32();
    const id = tagValue >>> 3;
    const wireType = tagValue & 7;
    if (id === 1 && wireType === 2) key = r.string();
    else if (id === 2 && field.scalar !== undefined && wireType === field.wireType) value = scalarJson(field.scalar, readScalar(r, field.scalar));
    else if (id === 2 && field.scalar === undefined && wireType === 2) value = readBody(messageOf(field), r.bytes(), `${path}.${key}`, depth + 1);
    else r.skipType(wireType);
  }
  if (value === undefined) {
    // A zero value Go shows as null (a zero time) stays in the map as null.
    if (field.scalar === 'bytes') value = '';
    else value = field.scalar !== undefined ? zeroScalar(field.scalar) : zeroJson(messageOf(field), path, depth);
  }
  return [key, value ?? null];
}

/** The JSON of a Go zero value of a message (a value field absent from the wire). */
function zeroJson(message: KubernetesMessage, path: string, depth: number): unknown {
  if (message.list) return undefined;
  if (message.special) return readSpecial(message.special, new Map(), new Uint8Array(0), path, depth);
  return readBody(message, new Uint8Array(0), path, depth);
}

/** The JSON value of one message body. */
function readBody(message: KubernetesMessage, bytes: Uint8Array, path: string, depth: number): unknown {
  const values = readFields(message, bytes, path, depth);
  if (message.special) return readSpecial(message.special, values, bytes, path, depth);
  if (message.list) {
    const items = values.get(message.byNumber[0]) as unknown[] | undefined;
    return items ?? [];
  }
  const json: Json = {};
  for (const field of message.fields) {
    if (field.json === undefined && !field.inline) continue;
    const value = values.get(field);
    let converted: unknown;
    if (field.rule === 'map') {
      converted = value;
    } else if (field.rule === 'repeated') {
      const items = value as unknown[] | undefined;
      if (items && items.length > 0) converted = field.scalar !== undefined ? items.map((item) => scalarJson(field.scalar as string, item)) : items;
    } else if (field.scalar !== undefined) {
      if (value === undefined) {
        if (!field.ptr && field.scalar !== 'bytes' && !field.omitempty) converted = zeroScalar(field.scalar);
      } else if (field.ptr || !field.omitempty || !isZero(value)) {
        converted = scalarJson(field.scalar, value);
      }
    } else {
      converted = value !== undefined ? value : field.ptr ? undefined : zeroJson(messageOf(field), `${path}.${field.name}`, depth + 1);
    }
    if (converted === undefined) continue;
    if (field.inline) {
      if (isObject(converted)) Object.assign(json, converted);
    } else {
      json[field.json as string] = converted;
    }
  }
  return json;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function formatTime(seconds: number, micros: number | undefined): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new EnvelopeError(`time ${seconds} is out of range`);
  const base = date.toISOString().slice(0, 19);
  return micros === undefined ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}

function readSpecial(special: Special, values: Map<Field, unknown>, bytes: Uint8Array, path: string, depth: number): unknown {
  const byName = new Map([...values].map(([field, value]) => [field.name, value]));
  switch (special) {
    case 'time':
    case 'microtime': {
      // An empty message is the zero time, null in JSON; nanoseconds are not read for Time, as in Go.
      if (bytes.length === 0) return undefined;
      const seconds = toNumber(byName.get('seconds') ?? 0);
      if (special === 'time') return formatTime(seconds, undefined);
      return formatTime(seconds, Math.floor(toNumber(byName.get('nanos') ?? 0) / 1000));
    }
    case 'quantity':
      return typeof byName.get('string') === 'string' ? byName.get('string') : '0';
    case 'intorstring':
      return toNumber(byName.get('type') ?? 0) === 1 ? (byName.get('strVal') ?? '') : toNumber(byName.get('intVal') ?? 0);
    case 'duration':
      return formatGoDuration(toNumber(byName.get('duration') ?? 0));
    case 'rawjson': {
      const raw = [...values.values()][0];
      if (!(raw instanceof Uint8Array) || raw.length === 0) return undefined;
      return rawJson(raw, path, depth);
    }
  }
}

/** A RawExtension's bytes: JSON, or an object in the protobuf envelope (a watch event's object). */
function rawJson(raw: Uint8Array, path: string, depth: number): unknown {
  if (raw.length >= 4 && raw[0] === 0x6b && raw[1] === 0x38 && raw[2] === 0x73 && raw[3] === 0x00) {
    return decodeEmbeddedObject(raw.subarray(4), path, depth);
  }
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8')) as unknown;
  } catch {
    throw new EnvelopeError(`${path}: does not hold JSON`);
  }
}

const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown';

function decodeEmbeddedObject(bytes: Uint8Array, path: string, depth: number): unknown {
  const unknown = readBody(kubernetesMessage(UNKNOWN) as KubernetesMessage, bytes, path, depth + 1) as Json;
  const apiVersion = typeof unknown.apiVersion === 'string' ? unknown.apiVersion : '';
  const kind = typeof unknown.kind === 'string' ? unknown.kind : '';
  // Unknown's raw is read by readBody as base64 JSON text: take the bytes again from the wire.
  const raw = rawOfUnknown(bytes);
  const contentType = typeof unknown.ContentType === 'string' ? unknown.ContentType.split(';')[0].trim().toLowerCase() : '';
  if (contentType === 'application/json') {
    // An object of a kind with no message (a custom resource), carried as its JSON.
    const object = rawJson(raw, path, depth);
    if (!isObject(object)) throw new EnvelopeError(`${path}: the embedded JSON is not an object`);
    return { ...(apiVersion ? { apiVersion } : {}), ...(kind ? { kind } : {}), ...object };
  }
  if (contentType !== '') {
    throw new EnvelopeError(`${path}: an embedded object of content type ${JSON.stringify(unknown.ContentType)} is not read`);
  }
  const name = kubernetesMessageNameFor(apiVersion, kind);
  if (!name)
    throw new EnvelopeError(`${path}: protobuf objects of kind ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)} are not read`, 'UnsupportedMediaType');
  return { apiVersion, kind, ...(readBody(kubernetesMessage(name) as KubernetesMessage, raw, path, depth + 1) as Json) };
}

function rawOfUnknown(bytes: Uint8Array): Uint8Array {
  const r = Reader.create(bytes);
  let raw: Uint8Array = new Uint8Array(0);
  while (r.pos < r.len) {
    const key = r.uint32();
    if (key === ((2 << 3) | 2)) raw = r.bytes();
    else r.skipType(key & 7);
  }
  return raw;
}

/** Decodes one message of the table into its JSON form. */
export function decodeKubernetesMessage(name: string, bytes: Uint8Array): Json {
  const message = kubernetesMessage(name);
  if (!message) throw new EnvelopeError(`no protobuf message ${name}`, 'UnsupportedMediaType');
  try {
    const json = readBody(message, bytes, '', 0);
    return isObject(json) ? json : {};
  } catch (error) {
    if (error instanceof EnvelopeError) throw error;
    // protobufjs reports truncated input with RangeErrors.
    throw new EnvelopeError(`the protobuf ${name.slice(name.lastIndexOf('.') + 1)} is malformed: ${(error as Error).message}`);
  }
}

// ---- Go durations ----

const DURATION_UNITS: ReadonlyArray<[string, number]> = [
  ['ns', 1],
  ['us', 1e3],
  ['µs', 1e3],
  ['μs', 1e3],
  ['ms', 1e6],
  ['s', 1e9],
  ['m', 60e9],
  ['h', 3600e9],
];

/** Nanoseconds of a Go duration string (`1h2m3.5s`, `300ms`, `-1s`), as time.ParseDuration reads it. */
export function parseGoDuration(value: unknown, path = ''): number {
  if (typeof value !== 'string') return fail(path, 'a duration');
  let rest = value;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return fail(path, 'a duration');
  let total = 0;
  while (rest !== '') {
    const m = /^(\d*(?:\.\d*)?)([a-zµμ]+)/.exec(rest);
    if (!m || m[1] === '' || m[1] === '.') return fail(path, 'a duration');
    const unit = DURATION_UNITS.find(([u]) => u === m[2]);
    if (!unit) return fail(path, 'a duration');
    total += Number(m[1]) * unit[1];
    rest = rest.slice(m[0].length);
  }
  return sign * Math.round(total);
}

/** A Go duration's String(): `1h2m3.5s`, `300ms`, `0s`. */
export function formatGoDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  let n = Math.abs(nanos);
  if (n < 1e9) {
    const [unit, size] = n < 1e3 ? ['ns', 1] : n < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${trimFraction(n / size)}${unit}`;
  }
  const hours = Math.floor(n / 3600e9);
  n -= hours * 3600e9;
  const minutes = Math.floor(n / 60e9);
  n -= minutes * 60e9;
  const seconds = trimFraction(n / 1e9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function trimFraction(value: number): string {
  return String(Number(value.toFixed(9)));
}

import { kubernetesGroupName } from '../group-names';
import { jsonNestingDepth, SERVER_NESTING_DEPTH } from '../nesting-depth';
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
 *   IntOrString as type, int and string, RawExtension and FieldsV1 as their raw JSON, Duration as nanoseconds;
 * - a CRD schema's hand-marshalled unions as apiextensions v1's marshal.go reads and writes them: JSON
 *   (`default`, `example`, `enum` items) as its raw JSON, JSONSchemaPropsOrBool (`false`, `true` or a
 *   schema: allows, always written, and the schema), JSONSchemaPropsOrArray (a schema, or an array of
 *   schemas) and JSONSchemaPropsOrStringArray (a schema, or an array of property names).
 * The JSON is the one Go's encoding/json writes for the same struct: `omitempty` zero values left
 * out, inlined structs merged into their parent, value structs always present; `null` is left out.
 */

type Json = Record<string, unknown>;

/** Hand-marshalled types whose fields are scalars, the same in every type of a kind. */
type ScalarSpecial = 'time' | 'microtime' | 'duration' | 'rawjson' | 'quantity' | 'intorstring';

type Special = ScalarSpecial | 'json' | 'schemaorbool' | 'schemaorarray' | 'schemaorstringarray';

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

/**
 * The deepest nesting of messages a body may have. Kubernetes' own types stay far below it; a custom
 * resource definition's schema is the deepest, two messages for each level under `items` or
 * `additionalProperties`: the 128 levels of schema the API server accepts take some 260.
 */
const MAX_DEPTH = 300;

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
  /** The field's place in its message's `fields`: the slot a read puts its value in. */
  slot: number;
  /** The compiled message of a message field, found on first use (one lookup per field, not per read). */
  resolved?: KubernetesMessage;
}

/** One message of the table, compiled: its fields in Go order (JSON) and in number order (wire). */
export interface KubernetesMessage {
  readonly name: string;
  readonly special: Special | undefined;
  readonly list: boolean;
  readonly fields: readonly Field[];
  readonly byNumber: readonly Field[];
  readonly byId: ReadonlyMap<number, Field>;
  /** The fields indexed by number, holes where the message has none: what a read looks a tag up in. */
  readonly byIdDense: ReadonlyArray<Field | undefined>;
}

const compiled = new Map<string, KubernetesMessage>();

/** The compiled message of a fully qualified name (`k8s.io.api.core.v1.Pod`); undefined when the table lacks it. */
export function kubernetesMessage(name: string): KubernetesMessage | undefined {
  const known = compiled.get(name);
  if (known) return known;
  const entry = TABLE.messages[name];
  if (!entry) return undefined;
  const fields = entry.fields.map((f, slot): Field => {
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
      slot,
      resolved: undefined,
    };
  });
  const byIdDense: Array<Field | undefined> = [];
  // Field numbers of the table are small (under 100); a number too large for an array stays out of it.
  for (const field of fields) if (field.id < 4096) byIdDense[field.id] = field;
  const message: KubernetesMessage = {
    name,
    special: entry.special as Special | undefined,
    list: entry.list === true,
    fields,
    byNumber: [...fields].sort((a, b) => a.id - b.id),
    byId: new Map(fields.map((f) => [f.id, f])),
    byIdDense,
  };
  compiled.set(name, message);
  return message;
}

function messageOf(field: Field): KubernetesMessage {
  if (field.resolved !== undefined) return field.resolved;
  const message = field.messageName === undefined ? undefined : kubernetesMessage(field.messageName);
  field.resolved = message;
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

/** Names found, by apiVersion then kind; bounded, as they come from requests (an envelope's type meta). */
const messageNames = new Map<string, Map<string, string | undefined>>();
const MESSAGE_NAMES_KEPT = 1024;

/**
 * The message of an object of `apiVersion` and `kind`, as Kubernetes' scheme finds it: the kind of
 * that group version (a `*.svc.io` group is its `*.k8s.io` twin), else meta/v1's kinds registered in
 * every group version (Status, WatchEvent, DeleteOptions and the other options). Undefined for
 * anything else, custom resources among them.
 */
export function kubernetesMessageNameFor(apiVersion: string, kind: string): string | undefined {
  let byKind = messageNames.get(apiVersion);
  if (byKind?.has(kind)) return byKind.get(kind);
  const name = findMessageName(apiVersion, kind);
  if (byKind === undefined && messageNames.size < MESSAGE_NAMES_KEPT) messageNames.set(apiVersion, (byKind = new Map<string, string | undefined>()));
  if (byKind !== undefined && byKind.size < MESSAGE_NAMES_KEPT) byKind.set(kind, name);
  return name;
}

function findMessageName(apiVersion: string, kind: string): string | undefined {
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

/**
 * Where a value sits, for error messages only: the path is spelt out when something fails, so
 * encoding and decoding a message make no strings for it.
 */
interface PathNode {
  readonly parent: PathNode | undefined;
  readonly field: Field | undefined;
  /** A map entry's key. */
  readonly key?: string;
  /** A list item's index. */
  readonly index?: number;
}

function pathOf(node: PathNode | undefined): string {
  const names: string[] = [];
  for (let at = node; at !== undefined; at = at.parent) {
    let name = at.field && !at.field.inline ? `.${at.field.json ?? at.field.name}` : '';
    if (at.key !== undefined) name += `.${at.key}`;
    if (at.index !== undefined) name += `[${at.index}]`;
    names.push(name);
  }
  return names.reverse().join('').replace(/^\./, '');
}

function fail(at: PathNode | undefined, expected: string): never {
  throw new EnvelopeError(`${pathOf(at) || 'the object'}: expected ${expected}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Node's Buffer methods under Buffer#toString and Buffer#write, present on every Buffer though not in its types. */
interface NodeBufferMethods {
  utf8Slice(start: number, end: number): string;
  utf8Write(text: string, offset: number, length: number): number;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Go's sort.Strings: byte order of the UTF-8 encodings (UTF-16 order is the same without surrogates). */
function sortedKeys(object: Json): string[] {
  const keys = Object.keys(object);
  if (keys.length < 2) return keys;
  if (!keys.some((key) => SURROGATE.test(key))) return keys.sort();
  return keys.sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

/**
 * The bytes of one encode, written forward into one growing buffer. A nested message gets one byte
 * for its length before its body is written; the rare body of 128 bytes or more is moved up once
 * its length is known. No part is built twice and no list of parts is kept.
 */
class Out {
  buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  uint32(value: number): void {
    this.ensure(5);
    let v = value >>> 0;
    while (v > 0x7f) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }

  /** A signed or unsigned integer up to 2^53 as a 64-bit varint; negatives take 10 bytes, as in Go. */
  int64(value: number): void {
    if (value >= 0 && value <= 0xffffffff) {
      this.uint32(value);
      return;
    }
    this.ensure(10);
    let high = Math.floor(value / 4294967296);
    let low = value - high * 4294967296;
    high >>>= 0;
    low >>>= 0;
    while (high > 0 || low > 0x7f) {
      this.buf[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    this.buf[this.pos++] = low;
  }

  tag(id: number, wireType: number): void {
    this.uint32((id << 3) | wireType);
  }

  string(text: string): void {
    if (text.length < 43) {
      // At most 126 bytes: a one-byte length, written once the text is.
      this.ensure(1 + text.length * 3);
      const start = this.pos++;
      const written = (this.buf as Buffer & NodeBufferMethods).utf8Write(text, this.pos, text.length * 3);
      this.buf[start] = written;
      this.pos += written;
      return;
    }
    const length = Buffer.byteLength(text, 'utf8');
    this.uint32(length);
    this.ensure(length);
    (this.buf as Buffer & NodeBufferMethods).utf8Write(text, this.pos, length);
    this.pos += length;
  }

  bytes(bytes: Uint8Array): void {
    this.uint32(bytes.length);
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  double(value: number): void {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }

  float(value: number): void {
    this.ensure(4);
    this.pos = this.buf.writeFloatLE(value, this.pos);
  }

  /** Starts a length-delimited body: returns where its length goes. */
  fork(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Ends the body started at `start`: writes its length, moving the body up when the length takes more than a byte. */
  ldelim(start: number): void {
    const length = this.pos - start - 1;
    if (length < 0x80) {
      this.buf[start] = length;
      return;
    }
    let size = 1;
    for (let v = length >>> 7; v > 0; v >>>= 7) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    let v = length;
    let at = start;
    while (v > 0x7f) {
      this.buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[at] = v;
    this.pos += size - 1;
  }

  /** A copy of what was written: the buffer itself is reused by the next encode. */
  finish(): Uint8Array {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }
}

// One buffer for every encode (they never interleave: an encode runs to its end synchronously); a
// buffer grown past this for a large object is not kept.
const SCRATCH_BYTES = 64 * 1024;
const MAX_KEPT_SCRATCH_BYTES = 4 * 1024 * 1024;
let scratch: Out | undefined;

function writeScalar(out: Out, type: string, value: unknown, at: PathNode | undefined): void {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') fail(at, 'a string');
      out.string(value);
      return;
    case 'bytes':
      if (typeof value !== 'string') fail(at, 'a base64 string');
      out.bytes(Buffer.from(value, 'base64'));
      return;
    case 'bool':
      if (typeof value !== 'boolean') fail(at, 'a boolean');
      out.uint32(value ? 1 : 0);
      return;
    case 'double':
    case 'float':
      if (typeof value !== 'number') fail(at, 'a number');
      if (type === 'double') out.double(value);
      else out.float(value);
      return;
    default:
      if (typeof value !== 'number' || !Number.isInteger(value)) fail(at, 'an integer');
      if (type === 'uint32') out.uint32(value);
      else if (type === 'int32') out.int64(value | 0);
      else out.int64(value);
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

/** Writes the body of one message (no tag, no length) for its JSON value; `undefined` is the Go zero value. */
function writeBody(out: Out, message: KubernetesMessage, value: unknown, at: PathNode | undefined, depth: number): void {
  if (depth > MAX_DEPTH) fail(at, `at most ${MAX_DEPTH} levels of nesting`);
  if (message.special) {
    writeSpecial(out, message, message.special, value, at, depth);
    return;
  }
  if (message.list) {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) fail(at, 'an array');
    const items = message.byNumber[0];
    for (let i = 0; i < value.length; i++) {
      out.tag(items.id, items.wireType);
      writeScalar(out, items.scalar ?? 'string', value[i], { parent: at, field: undefined, index: i });
    }
    return;
  }
  const json: Json = value === undefined || value === null ? {} : isObject(value) ? value : fail(at, 'an object');
  const fields = message.byNumber;
  for (let i = 0; i < fields.length; i++) writeField(out, fields[i], json, at, depth);
}

function writeField(out: Out, field: Field, json: Json, at: PathNode | undefined, depth: number): void {
  const raw = field.inline ? json : field.json === undefined ? undefined : json[field.json];
  const value = raw === null ? undefined : raw;
  if (field.rule === 'map') {
    if (value === undefined) return;
    if (!isObject(value)) fail({ parent: at, field }, 'an object');
    for (const key of sortedKeys(value)) {
      out.tag(field.id, 2);
      const entry = out.fork();
      out.tag(1, 2);
      out.string(key);
      const item = value[key];
      if (field.scalar !== undefined) {
        out.tag(2, field.wireType);
        writeScalar(out, field.scalar, item === null || item === undefined ? zeroScalar(field.scalar) : item, { parent: at, field, key });
      } else {
        out.tag(2, 2);
        const body = out.fork();
        writeBody(out, messageOf(field), item === null ? undefined : item, { parent: at, field, key }, depth + 1);
        out.ldelim(body);
      }
      out.ldelim(entry);
    }
    return;
  }
  if (field.rule === 'repeated') {
    if (value === undefined) return;
    if (!Array.isArray(value)) fail({ parent: at, field }, 'an array');
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out.tag(field.id, field.wireType);
      if (field.scalar !== undefined) {
        writeScalar(out, field.scalar, item === null || item === undefined ? zeroScalar(field.scalar) : item, { parent: at, field, index: i });
      } else {
        const body = out.fork();
        writeBody(out, messageOf(field), item === null ? undefined : item, { parent: at, field, index: i }, depth + 1);
        out.ldelim(body);
      }
    }
    return;
  }
  if (field.scalar !== undefined) {
    // A `[]byte` is nil unless set, as a pointer is.
    if (value === undefined && (field.ptr || field.scalar === 'bytes')) return;
    if (field.sparse && (value === undefined || isZero(value))) return;
    out.tag(field.id, field.wireType);
    writeScalar(out, field.scalar, value === undefined ? zeroScalar(field.scalar) : value, { parent: at, field });
    return;
  }
  if (value === undefined && field.ptr) return;
  const message = messageOf(field);
  // A list wrapper (`type ExtraValue []string`) is a slice: nil unless set.
  if (value === undefined && message.list) return;
  out.tag(field.id, 2);
  const body = out.fork();
  writeBody(out, message, value, field.inline ? at : { parent: at, field }, depth + 1);
  out.ldelim(body);
}

const TIME_PATTERN = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

// Objects carry the same few times over and over: the last ones parsed are kept.
const parsedTimes = new Map<string, { seconds: number; nanos: number }>();
const PARSED_TIMES_KEPT = 256;

/** Seconds and nanoseconds of an RFC 3339 time, as Go's time.Parse(time.RFC3339, ...) reads it. */
function parseTime(value: unknown, at: PathNode | undefined): { seconds: number; nanos: number } {
  const known = typeof value === 'string' ? parsedTimes.get(value) : undefined;
  if (known !== undefined) return known;
  const match = typeof value === 'string' ? TIME_PATTERN.exec(value) : null;
  if (!match) return fail(at, 'an RFC 3339 time');
  const zone = match[4].toUpperCase();
  const millis = Date.parse(`${match[1]}T${match[2]}${zone}`);
  if (Number.isNaN(millis)) return fail(at, 'an RFC 3339 time');
  const parsed = { seconds: Math.floor(millis / 1000), nanos: match[3] ? Number(match[3].padEnd(9, '0')) : 0 };
  if (parsedTimes.size >= PARSED_TIMES_KEPT) parsedTimes.clear();
  parsedTimes.set(value as string, parsed);
  return parsed;
}

/** A field of a hand-marshalled message by number (the table's own, so a missing one is a bug here). */
function fieldNumbered(message: KubernetesMessage, id: number): Field {
  const field = message.byId.get(id);
  if (field === undefined) throw new Error(`the protobuf table's ${message.name} lacks field ${id}`);
  return field;
}

/** Writes `value` as the message of field `id` of `message` (tag, length, body). */
function writeNested(out: Out, message: KubernetesMessage, id: number, value: unknown, at: PathNode | undefined, depth: number): void {
  const field = fieldNumbered(message, id);
  out.tag(id, 2);
  const body = out.fork();
  writeBody(out, messageOf(field), value, at, depth + 1);
  out.ldelim(body);
}

function writeSpecial(out: Out, message: KubernetesMessage, special: Special, value: unknown, at: PathNode | undefined, depth: number): void {
  const absent = value === undefined || value === null;
  switch (special) {
    case 'time':
    case 'microtime': {
      // The zero time (null in JSON) is an empty message.
      if (absent) return;
      const { seconds, nanos } = parseTime(value, at);
      out.tag(1, 0);
      out.int64(seconds);
      out.tag(2, 0);
      out.int64(special === 'microtime' ? nanos - (nanos % 1000) : 0);
      return;
    }
    case 'quantity': {
      // The zero Quantity is written as "0", as its String() says.
      const text = absent ? '0' : typeof value === 'string' ? value : typeof value === 'number' ? String(value) : fail(at, 'a quantity');
      out.tag(1, 2);
      out.string(text);
      return;
    }
    case 'intorstring': {
      const isString = typeof value === 'string';
      if (!absent && !isString && !(typeof value === 'number' && Number.isInteger(value))) fail(at, 'an integer or a string');
      out.tag(1, 0);
      out.int64(isString ? 1 : 0);
      out.tag(2, 0);
      out.int64(isString || absent ? 0 : value | 0);
      out.tag(3, 2);
      out.string(isString ? value : '');
      return;
    }
    case 'rawjson':
      if (absent) return;
      out.tag(1, 2);
      out.string(JSON.stringify(value));
      return;
    case 'duration':
      out.tag(1, 0);
      out.int64(absent ? 0 : parseGoDuration(value, pathOf(at)));
      return;
    case 'json':
      // Raw is nil for JSON null (Go's UnmarshalJSON keeps nothing): an empty message.
      if (absent) return;
      out.tag(1, 2);
      out.string(JSON.stringify(value));
      return;
    case 'schemaorbool': {
      // allows (1) is a Go bool, written even when false; a schema (2) means allows.
      if (!absent && typeof value !== 'boolean' && !isObject(value)) fail(at, 'a boolean or a schema');
      out.tag(1, 0);
      out.uint32(value === true || isObject(value) ? 1 : 0);
      if (isObject(value)) writeNested(out, message, 2, value, at, depth);
      return;
    }
    case 'schemaorarray':
      // A schema (1), or an array of schemas (2).
      if (absent) return;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++)
          writeNested(out, message, 2, value[i] === null ? undefined : value[i], { parent: at, field: undefined, index: i }, depth);
      } else if (isObject(value)) {
        writeNested(out, message, 1, value, at, depth);
      } else fail(at, 'a schema or an array of schemas');
      return;
    case 'schemaorstringarray':
      // A schema (1), or an array of property names (2).
      if (absent) return;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          out.tag(2, 2);
          writeScalar(out, 'string', value[i], { parent: at, field: undefined, index: i });
        }
      } else if (isObject(value)) {
        writeNested(out, message, 1, value, at, depth);
      } else fail(at, 'a schema or an array of strings');
      return;
  }
}

/** Encodes one message of the table from its JSON form. */
export function encodeKubernetesMessage(name: string, json: Json): Uint8Array {
  const message = kubernetesMessage(name);
  if (!message) throw new EnvelopeError(`no protobuf message ${name}`, 'UnsupportedMediaType');
  const out = scratch ?? new Out(SCRATCH_BYTES);
  scratch = undefined;
  out.pos = 0;
  try {
    writeBody(out, message, json, undefined, 0);
    return out.finish();
  } finally {
    if (out.buf.length <= MAX_KEPT_SCRATCH_BYTES) scratch = out;
  }
}

/**
 * Encodes a list message (`XxxList`) from its JSON (metadata and any other field), its items'
 * messages taken from `itemMessage` where it has them (an item shared by many answers is encoded
 * once) and encoded here otherwise.
 */
export function encodeKubernetesList(name: string, list: Json, itemMessage: (item: Json) => Uint8Array | undefined): Uint8Array {
  const message = kubernetesMessage(name);
  if (!message) throw new EnvelopeError(`no protobuf message ${name}`, 'UnsupportedMediaType');
  const out = scratch ?? new Out(SCRATCH_BYTES);
  scratch = undefined;
  out.pos = 0;
  try {
    for (const field of message.byNumber) {
      const items = list[field.json ?? ''];
      if (field.json !== 'items' || field.rule !== 'repeated' || field.scalar !== undefined || !Array.isArray(items)) {
        writeField(out, field, list, undefined, 0);
        continue;
      }
      for (let i = 0; i < items.length; i++) {
        const item: unknown = items[i];
        const encoded = isObject(item) ? itemMessage(item) : undefined;
        out.tag(field.id, 2);
        if (encoded !== undefined) {
          out.bytes(encoded);
          continue;
        }
        const body = out.fork();
        writeBody(out, messageOf(field), item === null ? undefined : item, { parent: undefined, field, index: i }, 1);
        out.ldelim(body);
      }
    }
    return out.finish();
  } finally {
    if (out.buf.length <= MAX_KEPT_SCRATCH_BYTES) scratch = out;
  }
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
  if (out.length >= limit || depth > MAX_DEPTH || message.list) return;
  if (message.special) {
    collectUnknownInUnion(message, value, path, out, limit, depth);
    return;
  }
  if (!isObject(value)) return;
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

/** A CRD schema union's schemas (a schema, or each schema of an array) checked as schemas. */
function collectUnknownInUnion(message: KubernetesMessage, value: unknown, path: string, out: string[], limit: number, depth: number): void {
  if (message.special !== 'schemaorbool' && message.special !== 'schemaorarray' && message.special !== 'schemaorstringarray') return;
  const schemaField = message.fields.find((field) => field.scalar === undefined);
  if (schemaField === undefined) return;
  const schema = messageOf(schemaField);
  if (isObject(value)) collectUnknown(schema, value, path, out, limit, depth + 1);
  else if (Array.isArray(value) && message.special === 'schemaorarray') {
    value.forEach((item, i) => collectUnknown(schema, item, `${path}[${i}]`, out, limit, depth + 1));
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

/**
 * A cursor over one buffer: messages nested in it are read in place, between `pos` and an end, with
 * no copy and no reader per message. Varints are read as JavaScript numbers: int64 values beyond
 * 2^53 lose precision, as they do in any JSON a JavaScript program reads.
 */
class Cursor {
  pos = 0;

  constructor(readonly buf: Buffer) {}

  /** A varint's low 32 bits, unsigned (keys, lengths, uint32, bool). */
  uint32(end: number): number {
    const buf = this.buf;
    let value = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) throw new RangeError('varint runs past the end of the message');
      const byte = buf[this.pos++];
      if (shift < 32) value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value >>> 0;
      shift += 7;
    }
    throw new RangeError('varint longer than 10 bytes');
  }

  /** A varint as a signed 64-bit integer (int64, and int32 written as a 10-byte negative). */
  int64(end: number): number {
    const buf = this.buf;
    let low = 0;
    let high = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) throw new RangeError('varint runs past the end of the message');
      const byte = buf[this.pos++];
      if (shift < 28) low |= (byte & 0x7f) << shift;
      else if (shift === 28) {
        low |= (byte & 0x0f) << 28;
        high |= (byte & 0x7f) >>> 4;
      } else high |= (byte & 0x7f) << (shift - 32);
      if (byte < 0x80) return (high | 0) * 4294967296 + (low >>> 0);
      shift += 7;
    }
    throw new RangeError('varint longer than 10 bytes');
  }

  /** A varint as an unsigned 64-bit integer. */
  uint64(end: number): number {
    const start = this.pos;
    const signed = this.int64(end);
    if (signed >= 0) return signed;
    this.pos = start;
    // The same bits, read unsigned: high word as a positive number.
    let low = 0;
    let high = 0;
    let shift = 0;
    for (;;) {
      const byte = this.buf[this.pos++];
      if (shift < 28) low |= (byte & 0x7f) << shift;
      else if (shift === 28) {
        low |= (byte & 0x0f) << 28;
        high |= (byte & 0x7f) >>> 4;
      } else high |= (byte & 0x7f) << (shift - 32);
      if (byte < 0x80) return (high >>> 0) * 4294967296 + (low >>> 0);
      shift += 7;
    }
  }

  /** The end of a length-delimited field starting here. */
  lengthEnd(end: number): number {
    const length = this.uint32(end);
    const stop = this.pos + length;
    if (stop > end) throw new RangeError(`a field of ${length} bytes runs past the end of the message`);
    return stop;
  }

  string(end: number): string {
    const stop = this.lengthEnd(end);
    // Node's own slice, without Buffer#toString's argument checks: strings are most of a message.
    const text = (this.buf as Buffer & NodeBufferMethods).utf8Slice(this.pos, stop);
    this.pos = stop;
    return text;
  }

  bytes(end: number): Buffer {
    const stop = this.lengthEnd(end);
    const bytes = this.buf.subarray(this.pos, stop);
    this.pos = stop;
    return bytes;
  }

  skip(wireType: number, end: number): void {
    switch (wireType) {
      case 0:
        this.uint32(end);
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.lengthEnd(end);
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new RangeError(`wire type ${wireType} is not read`);
    }
    if (this.pos > end) throw new RangeError('a fixed-size field runs past the end of the message');
  }

  scalar(type: string, end: number): unknown {
    switch (type) {
      case 'string':
        return this.string(end);
      case 'bytes':
        return this.bytes(end);
      case 'bool':
        return this.uint32(end) !== 0;
      case 'int32':
        return this.uint32(end) | 0;
      case 'uint32':
        return this.uint32(end);
      case 'int64':
        return this.int64(end);
      case 'uint64':
        return this.uint64(end);
      case 'double':
      case 'float': {
        const size = type === 'double' ? 8 : 4;
        if (this.pos + size > end) throw new RangeError('a fixed-size field runs past the end of the message');
        const value = type === 'double' ? this.buf.readDoubleLE(this.pos) : this.buf.readFloatLE(this.pos);
        this.pos += size;
        return value;
      }
      default:
        throw new EnvelopeError(`unknown scalar type ${type}`);
    }
  }
}

function fail2(node: PathNode | undefined, message: string): never {
  throw new EnvelopeError(`${pathOf(node)}: ${message}`);
}

/** A scalar's JSON value: bytes as base64. */
function scalarJson(type: string, value: unknown): unknown {
  return type === 'bytes' ? (value as Buffer).toString('base64') : value;
}

function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false || (value instanceof Uint8Array && value.length === 0);
}

/** A read field's definition by its number: the message's dense table, or its map for a number beyond it. */
function fieldById(message: KubernetesMessage, id: number): Field | undefined {
  return id < 4096 ? message.byIdDense[id] : message.byId.get(id);
}

/**
 * The JSON value of the message body between the cursor and `end`; `head` is the object to fill
 * (an embedded object's apiVersion and kind come first).
 */
function readMessage(message: KubernetesMessage, c: Cursor, end: number, at: PathNode | undefined, depth: number, head?: Json): unknown {
  if (depth > MAX_DEPTH) fail2(at, `nested more than ${MAX_DEPTH} levels deep`);
  if (message.special) return readSpecial(message, message.special, c, end, at, depth);
  const slots = readSlots(message, c, end, at, depth);
  if (message.list) return slots[0] ?? [];
  return jsonOf(message, slots, at, depth, head ?? {});
}

/** The values of a message's fields read from the wire, each in its field's slot (repeated fields as arrays, maps as objects). */
function readSlots(message: KubernetesMessage, c: Cursor, end: number, at: PathNode | undefined, depth: number): unknown[] {
  const slots: unknown[] = new Array<unknown>(message.fields.length);
  while (c.pos < end) {
    const key = c.uint32(end);
    const wireType = key & 7;
    const field = fieldById(message, key >>> 3);
    if (field === undefined) {
      c.skip(wireType, end);
      continue;
    }
    const slot = field.slot;
    if (field.rule === 'map') {
      if (wireType !== 2) wrongWire(at, field, wireType);
      const entryEnd = c.lengthEnd(end);
      const map = (slots[slot] as Json | undefined) ?? (slots[slot] = {});
      readMapEntry(field, c, entryEnd, map, at, depth);
      c.pos = entryEnd;
      continue;
    }
    if (field.scalar !== undefined) {
      if (field.rule === 'repeated') {
        const items = (slots[slot] as unknown[] | undefined) ?? (slots[slot] = []);
        if (wireType === 2 && field.wireType !== 2) {
          // A packed list, which Go's unmarshaller also reads.
          const stop = c.lengthEnd(end);
          while (c.pos < stop) items.push(c.scalar(field.scalar, stop));
        } else {
          if (wireType !== field.wireType) wrongWire(at, field, wireType);
          items.push(c.scalar(field.scalar, end));
        }
      } else {
        if (wireType !== field.wireType) wrongWire(at, field, wireType);
        slots[slot] = c.scalar(field.scalar, end);
      }
      continue;
    }
    if (wireType !== 2) wrongWire(at, field, wireType);
    const stop = c.lengthEnd(end);
    const value = readMessage(messageOf(field), c, stop, { parent: at, field }, depth + 1);
    c.pos = stop;
    if (field.rule === 'repeated') ((slots[slot] as unknown[] | undefined) ?? (slots[slot] = [])).push(value);
    else slots[slot] = value;
  }
  return slots;
}

function wrongWire(at: PathNode | undefined, field: Field, wireType: number): never {
  fail2({ parent: at, field }, `wrong wire type ${wireType}`);
}

/** A message's JSON from its read fields, as Go's encoding/json writes the struct. */
function jsonOf(message: KubernetesMessage, slots: readonly unknown[], at: PathNode | undefined, depth: number, json: Json): Json {
  const fields = message.fields;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (field.json === undefined && !field.inline) continue;
    const value = slots[i];
    let converted: unknown;
    if (field.rule === 'map') {
      converted = value;
    } else if (field.rule === 'repeated') {
      const items = value as unknown[] | undefined;
      if (items !== undefined && items.length > 0) converted = field.scalar === 'bytes' ? items.map((item) => scalarJson('bytes', item)) : items;
    } else if (field.scalar !== undefined) {
      if (value === undefined) {
        if (!field.ptr && field.scalar !== 'bytes' && !field.omitempty) converted = zeroScalar(field.scalar);
      } else if (field.ptr || !field.omitempty || !isZero(value)) {
        converted = scalarJson(field.scalar, value);
      }
    } else {
      converted = value !== undefined ? value : field.ptr ? undefined : zeroJson(messageOf(field), { parent: at, field }, depth + 1);
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

function readMapEntry(field: Field, c: Cursor, end: number, map: Json, at: PathNode | undefined, depth: number): void {
  let key = '';
  let value: unknown;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const id = tag >>> 3;
    const wireType = tag & 7;
    if (id === 1 && wireType === 2) key = internKey(c.string(end));
    else if (id === 2 && field.scalar !== undefined && wireType === field.wireType) value = scalarJson(field.scalar, c.scalar(field.scalar, end));
    else if (id === 2 && field.scalar === undefined && wireType === 2) {
      const stop = c.lengthEnd(end);
      value = readMessage(messageOf(field), c, stop, { parent: at, field, key }, depth + 1);
      c.pos = stop;
    } else c.skip(wireType, end);
  }
  if (value === undefined) {
    // A zero value Go shows as null (a zero time) stays in the map as null.
    if (field.scalar === 'bytes') value = '';
    else value = field.scalar !== undefined ? zeroScalar(field.scalar) : zeroJson(messageOf(field), at, depth);
  }
  map[key] = value ?? null;
}

const EMPTY = Buffer.alloc(0);

// Map keys (label, annotation and data keys) repeat across the objects of a cache: one string each,
// as JSON.parse shares an object's keys, instead of one per object read.
const internedKeys = new Map<string, string>();
const INTERNED_KEYS_KEPT = 4096;

function internKey(key: string): string {
  const known = internedKeys.get(key);
  if (known !== undefined) return known;
  if (internedKeys.size >= INTERNED_KEYS_KEPT) internedKeys.clear();
  internedKeys.set(key, key);
  return key;
}

/** The JSON of a Go zero value of a message (a value field absent from the wire). */
function zeroJson(message: KubernetesMessage, at: PathNode | undefined, depth: number): unknown {
  if (message.list) return undefined;
  return readMessage(message, new Cursor(EMPTY), 0, at, depth);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

// Objects carry the same few times over and over (creation, managed fields, conditions): the last
// ones formatted are kept.
const formattedSeconds = new Map<number, string>();
const FORMATTED_SECONDS_KEPT = 256;

function formatSeconds(seconds: number): string {
  let text = formattedSeconds.get(seconds);
  if (text === undefined) {
    const date = new Date(seconds * 1000);
    if (Number.isNaN(date.getTime())) throw new EnvelopeError(`time ${seconds} is out of range`);
    text = date.toISOString().slice(0, 19);
    if (formattedSeconds.size >= FORMATTED_SECONDS_KEPT) formattedSeconds.clear();
    formattedSeconds.set(seconds, text);
  }
  return text;
}

function formatTime(seconds: number, micros: number | undefined): string {
  const base = formatSeconds(seconds);
  return micros === undefined ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}

/** Reads the fields of a hand-marshalled type into values by field number, checking wire types. */
function readNumbered(message: KubernetesMessage, c: Cursor, end: number, at: PathNode | undefined): unknown[] {
  const values: unknown[] = [];
  while (c.pos < end) {
    const key = c.uint32(end);
    const wireType = key & 7;
    const field = fieldById(message, key >>> 3);
    if (field === undefined || field.scalar === undefined) {
      c.skip(wireType, end);
      continue;
    }
    if (wireType !== field.wireType) wrongWire(at, field, wireType);
    values[field.id] = c.scalar(field.scalar, end);
  }
  return values;
}

function readSpecial(own: KubernetesMessage, special: Special, c: Cursor, end: number, at: PathNode | undefined, depth: number): unknown {
  switch (special) {
    case 'schemaorbool':
    case 'schemaorarray':
    case 'schemaorstringarray':
      return readSchemaUnion(own, special, readSlots(own, c, end, at, depth));
    case 'json': {
      // Raw nil or empty is JSON null, as JSON.MarshalJSON writes it.
      const raw = readNumbered(own, c, end, at)[1] as Buffer | undefined;
      return raw === undefined || raw.length === 0 ? null : parseJson(raw, at, depth);
    }
    default:
  }
  const empty = c.pos >= end;
  const message = SPECIAL_MESSAGES[special];
  const values = readNumbered(message(), c, end, at);
  switch (special) {
    case 'time':
    case 'microtime': {
      // An empty message is the zero time, null in JSON; nanoseconds are not read for Time, as in Go.
      if (empty) return undefined;
      const seconds = (values[1] as number | undefined) ?? 0;
      if (special === 'time') return formatTime(seconds, undefined);
      return formatTime(seconds, Math.floor(((values[2] as number | undefined) ?? 0) / 1000));
    }
    case 'quantity':
      return typeof values[1] === 'string' ? values[1] : '0';
    case 'intorstring':
      return ((values[1] as number | undefined) ?? 0) === 1 ? (values[3] ?? '') : (values[2] ?? 0);
    case 'duration':
      return formatGoDuration((values[1] as number | undefined) ?? 0);
    case 'rawjson': {
      const raw = values[1] as Buffer | undefined;
      if (raw === undefined || raw.length === 0) return undefined;
      return rawJson(raw, at, depth);
    }
  }
}

/**
 * The JSON of a CRD schema union from its read fields, as its MarshalJSON writes it: JSONSchemaPropsOrBool
 * its schema if it has one, else `allows`; JSONSchemaPropsOrArray its schemas if it has any, else its
 * schema (null without); JSONSchemaPropsOrStringArray its property names if it has any, else its schema
 * (null without).
 */
function readSchemaUnion(message: KubernetesMessage, special: Special, slots: readonly unknown[]): unknown {
  const slotOf = (id: number): unknown => slots[fieldNumbered(message, id).slot];
  switch (special) {
    case 'schemaorbool':
      return slotOf(2) ?? slotOf(1) === true;
    case 'schemaorarray': {
      const schemas = slotOf(2) as unknown[] | undefined;
      return schemas !== undefined && schemas.length > 0 ? schemas : (slotOf(1) ?? null);
    }
    default: {
      const names = slotOf(2) as unknown[] | undefined;
      return names !== undefined && names.length > 0 ? names : (slotOf(1) ?? null);
    }
  }
}

/** A message of each hand-marshalled kind (their fields are the same in every type of a kind). */
const SPECIAL_MESSAGES: Readonly<Record<ScalarSpecial, () => KubernetesMessage>> = {
  time: () => kubernetesMessage(`${META_PACKAGE}.Time`) as KubernetesMessage,
  microtime: () => kubernetesMessage(`${META_PACKAGE}.MicroTime`) as KubernetesMessage,
  duration: () => kubernetesMessage(`${META_PACKAGE}.Duration`) as KubernetesMessage,
  rawjson: () => kubernetesMessage('k8s.io.apimachinery.pkg.runtime.RawExtension') as KubernetesMessage,
  quantity: () => kubernetesMessage('k8s.io.apimachinery.pkg.api.resource.Quantity') as KubernetesMessage,
  intorstring: () => kubernetesMessage('k8s.io.apimachinery.pkg.util.intstr.IntOrString') as KubernetesMessage,
};

/** A RawExtension's bytes: JSON, or an object in the protobuf envelope (a watch event's object). */
function rawJson(raw: Buffer, at: PathNode | undefined, depth: number): unknown {
  if (raw.length >= 4 && raw[0] === 0x6b && raw[1] === 0x38 && raw[2] === 0x73 && raw[3] === 0x00) {
    return decodeEmbeddedObject(raw.subarray(4), at, depth);
  }
  return parseJson(raw, at, depth);
}

/**
 * Raw JSON inside a message, parsed once its nesting is known to fit, with the messages around it,
 * within what the server's objects may nest (managed fields as deep as the fields they track): what
 * is read here is stringified, cloned and walked.
 */
function parseJson(raw: Buffer, at: PathNode | undefined, depth: number): unknown {
  const limit = Math.max(SERVER_NESTING_DEPTH - depth, 0);
  if (jsonNestingDepth(raw, limit) > limit) fail2(at, `nests more than ${SERVER_NESTING_DEPTH} levels deep`);
  try {
    return JSON.parse((raw as Buffer & NodeBufferMethods).utf8Slice(0, raw.length)) as unknown;
  } catch {
    return fail2(at, 'does not hold JSON');
  }
}

/** An object in an envelope (`runtime.Unknown`) inside another message: its type meta, then its own message or JSON. */
function decodeEmbeddedObject(bytes: Buffer, at: PathNode | undefined, depth: number): unknown {
  if (depth > MAX_DEPTH) fail2(at, `nested more than ${MAX_DEPTH} levels deep`);
  const c = new Cursor(bytes);
  const end = bytes.length;
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = EMPTY;
  let contentType = '';
  while (c.pos < end) {
    const key = c.uint32(end);
    if (key === ((1 << 3) | 2)) {
      // TypeMeta: apiVersion (1), kind (2).
      const stop = c.lengthEnd(end);
      while (c.pos < stop) {
        const inner = c.uint32(stop);
        if (inner === ((1 << 3) | 2)) apiVersion = c.string(stop);
        else if (inner === ((2 << 3) | 2)) kind = c.string(stop);
        else c.skip(inner & 7, stop);
      }
    } else if (key === ((2 << 3) | 2)) raw = c.bytes(end);
    else if (key === ((4 << 3) | 2)) contentType = c.string(end);
    else c.skip(key & 7, end);
  }
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (mediaType === 'application/json') {
    // An object of a kind with no message (a custom resource), carried as its JSON.
    const object = rawJson(raw, at, depth);
    if (!isObject(object)) fail2(at, 'the embedded JSON is not an object');
    return { ...(apiVersion ? { apiVersion } : {}), ...(kind ? { kind } : {}), ...object };
  }
  if (mediaType !== '') fail2(at, `an embedded object of content type ${JSON.stringify(contentType)} is not read`);
  const name = kubernetesMessageNameFor(apiVersion, kind);
  if (!name) {
    throw new EnvelopeError(
      `${pathOf(at)}: protobuf objects of kind ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)} are not read`,
      'UnsupportedMediaType',
    );
  }
  return readMessage(kubernetesMessage(name) as KubernetesMessage, new Cursor(raw), raw.length, at, depth + 1, { apiVersion, kind });
}

/** Decodes one message of the table into its JSON form. */
export function decodeKubernetesMessage(name: string, bytes: Uint8Array): Json {
  const message = kubernetesMessage(name);
  if (!message) throw new EnvelopeError(`no protobuf message ${name}`, 'UnsupportedMediaType');
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const json = readMessage(message, new Cursor(buf), buf.length, undefined, 0);
    return isObject(json) ? json : {};
  } catch (error) {
    if (error instanceof EnvelopeError) throw error;
    // A truncated or overlong field.
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
  const fail = (at: string, expected: string): never => {
    throw new EnvelopeError(`${at || 'the object'}: expected ${expected}`);
  };
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

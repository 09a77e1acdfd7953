import { celError, isCelError, isCelList, isCelMap, isCelType, isCelUint, objectType, type CelError, type CelType } from '@bufbuild/cel';

/**
 * Values of the types Kubernetes adds to CEL (optional_type, kubernetes.NamedFormat, ...), and
 * equality as cel-go computes it over every value, ours included.
 *
 * @bufbuild/cel knows no opaque types a host can add: its lists and maps convert each element they
 * hand out, and refuse anything that is not one of its own values. Its conversion passes through,
 * untouched, any object carrying its type marker, so our values carry that marker: lists and maps
 * then hold them as they are. Every function that looks into them (equality, type(), the optional
 * functions) is ours, never the engine's.
 */

const ENGINE_TYPE_MARK = Symbol.for('@bufbuild/cel/type');

/** A value of a type the engine does not know: it carries its CEL type name and its own equality. */
export abstract class CelOpaqueValue {
  readonly [ENGINE_TYPE_MARK] = {};
  abstract readonly typeName: string;
  /** cel-go's Equal: true or false for values of this type, an error for values of any other. */
  abstract equal(other: unknown): boolean | CelError;
  /** The value as cel-go prints it in messages and string(). */
  abstract toString(): string;
}

/** cel-go's optional value: `optional.of(x)` or `optional.none()`. */
export class CelOptional extends CelOpaqueValue {
  readonly typeName = 'optional_type';

  private constructor(private readonly inner: unknown) {
    super();
  }

  static of(value: unknown): CelOptional {
    return new CelOptional(value);
  }

  static readonly NONE = new CelOptional(undefined);

  hasValue(): boolean {
    return this.inner !== undefined;
  }

  /** The value, or cel-go's error for a none. */
  value(): unknown {
    return this.inner === undefined ? celError('optional.none() dereference') : this.inner;
  }

  equal(other: unknown): boolean | CelError {
    if (!(other instanceof CelOptional)) return false;
    if (!this.hasValue()) return !other.hasValue();
    if (!other.hasValue()) return false;
    return celEquals(this.inner, other.inner);
  }

  toString(): string {
    return this.hasValue() ? `optional(${formatValue(this.inner)})` : 'optional.none()';
  }
}

export function isOpaque(value: unknown): value is CelOpaqueValue {
  return value instanceof CelOpaqueValue;
}

/** The CEL type of an opaque value, as `type(x)` gives it. */
export function opaqueType(value: CelOpaqueValue): CelType {
  return objectType(value.typeName);
}

interface ReflectLike {
  desc: { typeName: string };
  message: { seconds?: bigint; nanos?: number };
}

function isReflectMessage(value: unknown): value is ReflectLike {
  if (typeof value !== 'object' || value === null) return false;
  const desc = (value as { desc?: { typeName?: unknown } }).desc;
  return typeof desc?.typeName === 'string' && 'message' in value;
}

const GO_ZERO_TIME_SECONDS = -62135596800n;
const TIME_TYPES = new Set(['google.protobuf.Timestamp', 'google.protobuf.Duration']);

function numeric(value: unknown): bigint | number | undefined {
  if (typeof value === 'bigint' || typeof value === 'number') return value;
  if (isCelUint(value)) return value.value;
  return undefined;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * cel-go's `==` (types.Equal): numbers compare across int, uint and double; values of different
 * types are unequal; lists and maps compare element by element; an opaque value decides for itself
 * (a Format compared with anything else is an error, as in Kubernetes).
 */
export function celEquals(a: unknown, b: unknown, depth = 0): boolean | CelError {
  if (depth > 200) return celError('equality nests too deeply');
  if (a === null || b === null) return a === b;
  if (a instanceof CelOpaqueValue) return a.equal(b);
  // A standard value on the left decides, as in cel-go: it is unequal to any value of another type.
  if (b instanceof CelOpaqueValue) return false;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined) {
    if (x === undefined || y === undefined) return false;
    if (typeof x === 'number' && Number.isNaN(x)) return false;
    if (typeof y === 'number' && Number.isNaN(y)) return false;
    return x == y;
  }
  if (typeof a === 'string' || typeof a === 'boolean') return a === b;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEqual(a, b);
  if (isCelList(a)) {
    if (!isCelList(b) || a.size !== b.size) return false;
    let error: CelError | undefined;
    for (let i = 0; i < a.size; i++) {
      const eq = celEquals(a.get(i), b.get(i), depth + 1);
      if (eq === false) return false;
      if (isCelError(eq)) error ??= eq;
    }
    return error ?? true;
  }
  if (isCelMap(a)) {
    if (!isCelMap(b) || a.size !== b.size) return false;
    let error: CelError | undefined;
    for (const [k, v] of a.entries()) {
      const other = b.get(k);
      if (other === undefined) return false;
      const eq = celEquals(v, other, depth + 1);
      if (eq === false) return false;
      if (isCelError(eq)) error ??= eq;
    }
    return error ?? true;
  }
  if (isCelType(a)) return isCelType(b) && a.kind === b.kind && a.name === b.name;
  if (isReflectMessage(a)) {
    if (!isReflectMessage(b) || a.desc.typeName !== b.desc.typeName) return false;
    if (TIME_TYPES.has(a.desc.typeName)) return a.message.seconds === b.message.seconds && (a.message.nanos ?? 0) === (b.message.nanos ?? 0);
    return a === b;
  }
  return a === b;
}

/** The name of a value's type, as cel-go names it in its errors. */
export function celTypeName(value: unknown): string {
  if (value === null) return 'null_type';
  if (value instanceof CelOpaqueValue) return value.typeName;
  switch (typeof value) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    default:
      break;
  }
  if (isCelUint(value)) return 'uint';
  if (value instanceof Uint8Array) return 'bytes';
  if (isCelList(value)) return 'list';
  if (isCelMap(value)) return 'map';
  if (isCelType(value)) return 'type';
  if (isReflectMessage(value)) return value.desc.typeName;
  return 'unknown';
}

/** cel-go's `no such overload` error, as its dispatcher words it. */
export function noSuchOverload(name: string, operands: readonly unknown[]): CelError {
  return celError(`no such overload: ${name}(${operands.map(celTypeName).join(', ')})`);
}

/** Whether a value is its type's zero value (optional.ofNonZeroValue), as cel-go's IsZeroValue decides. */
export function isZeroValue(value: unknown): boolean {
  if (value === null) return true;
  if (value instanceof CelOptional) return !value.hasValue();
  if (value instanceof CelOpaqueValue) return false;
  switch (typeof value) {
    case 'bigint':
      return value === 0n;
    case 'number':
      return value === 0;
    case 'string':
      return value === '';
    case 'boolean':
      return value === false;
    default:
      break;
  }
  if (isCelUint(value)) return value.value === 0n;
  if (value instanceof Uint8Array) return value.length === 0;
  if (isCelList(value) || isCelMap(value)) return value.size === 0;
  if (isReflectMessage(value) && value.desc.typeName === 'google.protobuf.Duration')
    return (value.message.seconds ?? 0n) === 0n && (value.message.nanos ?? 0) === 0;
  // Go's zero time, which cel-go's IsZeroValue tests for, is 0001-01-01T00:00:00Z, not the epoch.
  if (isReflectMessage(value) && value.desc.typeName === 'google.protobuf.Timestamp')
    return value.message.seconds === GO_ZERO_TIME_SECONDS && (value.message.nanos ?? 0) === 0;
  return false;
}

/** A value as cel-go prints it (in optional(...) and messages). */
export function formatValue(value: unknown, depth = 0): string {
  if (depth > 20) return '...';
  if (value === null) return 'null';
  if (value instanceof CelOpaqueValue) return value.toString();
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return String(value);
  if (isCelUint(value)) return `${value.value}u`;
  if (isCelList(value)) return `[${Array.from(value, (v) => formatValue(v, depth + 1)).join(', ')}]`;
  if (isCelMap(value)) return `{${Array.from(value.entries(), ([k, v]) => `${formatValue(k, depth + 1)}: ${formatValue(v, depth + 1)}`).join(', ')}}`;
  return celTypeName(value);
}

import { isIP } from 'node:net';
import { celError, celFunc, celMethod, CelScalar, listType, mapType, type CelError, type CelFunc } from '@bufbuild/cel';
import { CelOpaqueValue, celTypeName } from './cel-values';
import { parseQuantity, QUANTITY_FORMAT_ERROR, type QuantityParts } from '../meta/quantity';

// Kubernetes' URL, IP/CIDR and quantity libraries (k8s.io/apiserver/pkg/cel/library). @bufbuild/cel
// has no opaque value types a host can add, so a URL, IP, CIDR or quantity is carried as its string
// (canonical for IPs and CIDRs) and the libraries' methods are methods of strings: `url(x).getHost()`
// reads as in Kubernetes; `type()` of such a value is string. A quantity is a value of its own
// (CelQuantity): `==` compares amounts, as Kubernetes' Quantity.Equal does.

const STRING = CelScalar.STRING;
const BOOL = CelScalar.BOOL;
const INT = CelScalar.INT;

// ---- url ----

/** As Go's url.ParseRequestURI, which Kubernetes' url() uses: an absolute URI, or an absolute path. */
function parseUrl(text: string): URL | undefined {
  if (text.startsWith('/')) {
    try {
      return new URL(text, 'svc-relative:/');
    } catch {
      return undefined;
    }
  }
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(text)) return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function url(text: string): URL {
  const parsed = parseUrl(text);
  if (parsed === undefined) throw new Error(`URL parse error during conversion from string: ${text}`);
  return parsed;
}

const relative = (u: URL) => u.protocol === 'svc-relative:';

const urlFunctions: CelFunc[] = [
  celFunc('url', [STRING], STRING, (text) => (url(text), text)),
  celFunc('isURL', [STRING], BOOL, (text) => parseUrl(text) !== undefined),
  celMethod('getScheme', STRING, [], STRING, function () {
    const u = url(this);
    return relative(u) ? '' : u.protocol.slice(0, -1);
  }),
  celMethod('getHost', STRING, [], STRING, function () {
    return relative(url(this)) ? '' : url(this).host;
  }),
  celMethod('getHostname', STRING, [], STRING, function () {
    const u = url(this);
    return relative(u) ? '' : u.hostname.replace(/^\[(.*)\]$/, '$1');
  }),
  celMethod('getPort', STRING, [], STRING, function () {
    return relative(url(this)) ? '' : url(this).port;
  }),
  celMethod('getEscapedPath', STRING, [], STRING, function () {
    return url(this).pathname;
  }),
  celMethod('getQuery', STRING, [], mapType(STRING, listType(STRING)), function () {
    const query = new Map<string, string[]>();
    for (const [key, value] of url(this).searchParams) query.set(key, [...(query.get(key) ?? []), value]);
    return query;
  }),
];

// ---- ip and cidr ----

interface Address {
  family: 4 | 6;
  /** The address as a 32- or 128-bit number. */
  value: bigint;
}

function bits(family: 4 | 6): number {
  return family === 4 ? 32 : 128;
}

/** An address as Kubernetes' ip() takes it: no zone, no IPv4-mapped IPv6 form. */
function parseAddress(text: string): Address | undefined {
  const family = isIP(text);
  if (family === 4) {
    // Leading zeros are ambiguous (octal to some parsers): Kubernetes refuses them.
    if (text.split('.').some((part) => part.length > 1 && part.startsWith('0'))) return undefined;
    return { family: 4, value: text.split('.').reduce((v, part) => (v << 8n) | BigInt(part), 0n) };
  }
  if (family !== 6 || text.includes('%') || /\.\d+$/.test(text)) return undefined;
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return { family: 6, value: all.reduce((v, g) => (v << 16n) | BigInt(`0x${g}`), 0n) };
}

function formatAddress(a: Address): string {
  if (a.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((a.value >> shift) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((a.value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run of two or more zero groups, the first of equals, becomes `::`.
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

function ip(text: string): Address {
  const parsed = parseAddress(text);
  if (parsed === undefined) throw new Error(`IP Address ${JSON.stringify(text)} parse error during conversion from string`);
  return parsed;
}

interface Prefix {
  address: Address;
  length: number;
}

function parsePrefix(text: string): Prefix | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseAddress(text.slice(0, slash));
  const lengthText = text.slice(slash + 1);
  if (address === undefined || !/^(0|[1-9]\d{0,2})$/.test(lengthText)) return undefined;
  const length = Number(lengthText);
  return length <= bits(address.family) ? { address, length } : undefined;
}

function cidr(text: string): Prefix {
  const parsed = parsePrefix(text);
  if (parsed === undefined) throw new Error(`network address parse error during conversion from string: ${text}`);
  return parsed;
}

function masked(p: Prefix): Address {
  const width = BigInt(bits(p.address.family));
  const hostBits = width - BigInt(p.length);
  return { family: p.address.family, value: (p.address.value >> hostBits) << hostBits };
}

function contains(p: Prefix, a: Address, length = bits(a.family)): boolean {
  if (a.family !== p.address.family || length < p.length) return false;
  return masked({ address: a, length: p.length }).value === masked(p).value;
}

const inRange = (a: Address, text: string) => {
  const p = cidr(text);
  return contains(p, a);
};

/** `ip.isCanonical(s)`: whether `s` is the address as Kubernetes prints it; an error for no address. */
export function ipIsCanonical(text: string): boolean | CelError {
  const parsed = parseAddress(text);
  if (parsed === undefined) return celError(`IP Address ${JSON.stringify(text)} parse error during conversion from string`);
  return formatAddress(parsed) === text;
}

const ipFunctions: CelFunc[] = [
  celFunc('ip', [STRING], STRING, (text) => formatAddress(ip(text))),
  celFunc('isIP', [STRING], BOOL, (text) => parseAddress(text) !== undefined),
  celMethod('family', STRING, [], INT, function () {
    return BigInt(ip(this).family);
  }),
  celMethod('isUnspecified', STRING, [], BOOL, function () {
    return ip(this).value === 0n;
  }),
  celMethod('isLoopback', STRING, [], BOOL, function () {
    const a = ip(this);
    return a.family === 4 ? inRange(a, '127.0.0.0/8') : a.value === 1n;
  }),
  celMethod('isLinkLocalMulticast', STRING, [], BOOL, function () {
    const a = ip(this);
    return a.family === 4 ? inRange(a, '224.0.0.0/24') : inRange(a, 'ff02::/16');
  }),
  celMethod('isLinkLocalUnicast', STRING, [], BOOL, function () {
    const a = ip(this);
    return a.family === 4 ? inRange(a, '169.254.0.0/16') : inRange(a, 'fe80::/10');
  }),
  celMethod('isGlobalUnicast', STRING, [], BOOL, function () {
    const a = ip(this);
    if (a.value === 0n) return false;
    if (a.family === 4) {
      return !['127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '255.255.255.255/32'].some((r) => inRange(a, r));
    }
    return !(a.value === 1n || inRange(a, 'fe80::/10') || inRange(a, 'ff00::/8'));
  }),
  celFunc('cidr', [STRING], STRING, (text) => {
    const p = cidr(text);
    return `${formatAddress(p.address)}/${p.length}`;
  }),
  celFunc('isCIDR', [STRING], BOOL, (text) => parsePrefix(text) !== undefined),
  celMethod('containsIP', STRING, [STRING], BOOL, function (address) {
    return contains(cidr(this), ip(address));
  }),
  celMethod('containsCIDR', STRING, [STRING], BOOL, function (other) {
    const inner = cidr(other);
    return contains(cidr(this), inner.address, inner.length);
  }),
  celMethod('prefixLength', STRING, [], INT, function () {
    return BigInt(cidr(this).length);
  }),
  celMethod('ip', STRING, [], STRING, function () {
    return formatAddress(cidr(this).address);
  }),
  celMethod('masked', STRING, [], STRING, function () {
    const p = cidr(this);
    return `${formatAddress(masked(p))}/${p.length}`;
  }),
];

// ---- quantity ----

/** A quantity's value: mantissa × 10^exp10 × 2^exp2, exactly. */
type Amount = Pick<QuantityParts, 'mantissa' | 'exp10' | 'exp2'>;

/** Kubernetes' quantity grammar, with exponents bounded so that exact arithmetic stays cheap. */
function parseAmount(text: string): Amount | undefined {
  if (text !== text.trim()) return undefined;
  const parts = parseQuantity(text);
  return parts === undefined || Math.abs(parts.exp10) > 1000 ? undefined : parts;
}

/** The two amounts with one scale: mantissas to compare or add. */
function aligned(a: Amount, b: Amount): [bigint, bigint] {
  const exp10 = Math.min(a.exp10, b.exp10);
  const exp2 = Math.min(a.exp2, b.exp2);
  const scale = (x: Amount) => x.mantissa * 10n ** BigInt(x.exp10 - exp10) * 2n ** BigInt(x.exp2 - exp2);
  return [scale(a), scale(b)];
}

function compareAmounts(a: Amount, b: Amount): number {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The integer value, or undefined when it has a fraction. */
function integerOf(a: Amount): bigint | undefined {
  let value = a.mantissa * 2n ** BigInt(a.exp2);
  if (a.exp10 >= 0) return value * 10n ** BigInt(a.exp10);
  const divisor = 10n ** BigInt(-a.exp10);
  if (value % divisor !== 0n) return undefined;
  value /= divisor;
  return value;
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** A value of Kubernetes' kubernetes.Quantity type: compared, added and subtracted by its amount, not its spelling. */
export class CelQuantity extends CelOpaqueValue {
  readonly typeName = 'kubernetes.Quantity';

  constructor(
    readonly text: string,
    readonly amount: Amount,
  ) {
    super();
  }

  equal(other: unknown): boolean | CelError {
    if (!(other instanceof CelQuantity)) return celError(`no such overload: kubernetes.Quantity == ${celTypeName(other)}`);
    return compareAmounts(this.amount, other.amount) === 0;
  }

  toString(): string {
    return this.text;
  }
}

function amountOf(value: unknown): Amount | undefined {
  if (value instanceof CelQuantity) return value.amount;
  if (typeof value === 'bigint') return { mantissa: value, exp10: 0, exp2: 0 };
  return undefined;
}

function sum(a: Amount, b: Amount, sign: 1n | -1n): CelQuantity {
  const exp10 = Math.min(a.exp10, b.exp10);
  const exp2 = Math.min(a.exp2, b.exp2);
  const [x, y] = aligned(a, b);
  const amount = { mantissa: x + sign * y, exp10, exp2 };
  return new CelQuantity(formatAmount(amount), amount);
}

/** The amount as a decimal quantity string (for messages; equality compares amounts). */
function formatAmount(a: Amount): string {
  let value = a.mantissa * 2n ** BigInt(a.exp2);
  let exp = a.exp10;
  while (exp < 0 && value % 10n === 0n) {
    value /= 10n;
    exp++;
  }
  return exp === 0 ? String(value) : `${value}e${exp}`;
}

/** kubernetes.Quantity's methods (library/quantity.go), or NOT_A_QUANTITY_CALL when the call is not one of them. */
export const NOT_A_QUANTITY_CALL: unique symbol = Symbol('not a quantity call');

export function callQuantity(name: string, target: unknown, args: readonly unknown[]): unknown {
  if (name === 'quantity' && target === undefined && args.length === 1 && typeof args[0] === 'string') {
    const text = args[0];
    const parsed = parseAmount(text);
    if (parsed === undefined) return celError(`${QUANTITY_FORMAT_ERROR}: ${text}`);
    return new CelQuantity(text, parsed);
  }
  if (!(target instanceof CelQuantity)) return NOT_A_QUANTITY_CALL;
  const q = target.amount;
  const [arg] = args;
  switch (name) {
    case 'sign':
      return q.mantissa > 0n ? 1n : q.mantissa < 0n ? -1n : 0n;
    case 'isInteger': {
      const value = integerOf(q);
      return value !== undefined && value >= INT64_MIN && value <= INT64_MAX;
    }
    case 'asInteger': {
      const value = integerOf(q);
      if (value === undefined || value < INT64_MIN || value > INT64_MAX) return celError('cannot convert value to integer');
      return value;
    }
    case 'asApproximateFloat':
      return Number(q.mantissa) * 10 ** q.exp10 * 2 ** q.exp2;
    case 'compareTo':
    case 'isLessThan':
    case 'isGreaterThan': {
      if (!(arg instanceof CelQuantity)) break;
      const c = compareAmounts(q, arg.amount);
      return name === 'compareTo' ? BigInt(c) : name === 'isLessThan' ? c < 0 : c > 0;
    }
    case 'add':
    case 'sub': {
      const other = amountOf(arg);
      if (other === undefined) break;
      return sum(q, other, name === 'add' ? 1n : -1n);
    }
    default:
      break;
  }
  return celError(`no such overload: ${name}(kubernetes.Quantity${args.map((a) => `, ${celTypeName(a)}`).join('')})`);
}

const quantityFunctions: CelFunc[] = [celFunc('isQuantity', [STRING], BOOL, (text) => parseAmount(text) !== undefined)];

/** Kubernetes' URL, IP/CIDR and quantity libraries, on string-carried values. */
export const kubernetesValueLibraries: CelFunc[] = [...urlFunctions, ...ipFunctions, ...quantityFunctions];

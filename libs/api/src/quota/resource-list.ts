import { canonicalQuantity, parseQuantity, quantityNanoValue } from '../meta/quantity';

/** Amounts by resource name, as a quota's `hard` and `used` hold them (Kubernetes' ResourceList). */
export type ResourceList = Record<string, string | number>;

const NANO = 1_000_000_000n;

/** A quantity of `nanos` billionths, written as Kubernetes writes a sum: in binary units when its first operand was. */
export function quantityFromNanos(nanos: bigint, binary = false): string {
  if (binary && nanos % NANO === 0n) {
    const whole = nanos / NANO;
    if (whole !== 0n && whole % 1024n === 0n) return canonicalQuantity(`${whole / 1024n}Ki`) ?? String(whole);
  }
  return canonicalQuantity(`${nanos}n`) ?? '0';
}

function nanos(value: unknown): bigint {
  return quantityNanoValue(value) ?? 0n;
}

function isBinary(value: unknown): boolean {
  return parseQuantity(value)?.format === 'BinarySI';
}

/** Quantity.Add: the sum keeps the format of its first non-zero operand. */
export function addQuantities(a: unknown, b: unknown): string {
  const x = nanos(a);
  return quantityFromNanos(x + nanos(b), x === 0n ? isBinary(b) : isBinary(a));
}

/** quota.Add: every name of either list, amounts summed. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [name, value] of Object.entries(b)) out[name] = name in a ? addQuantities(a[name], value) : (canonicalQuantity(value) ?? String(value));
  return out;
}

/** quota.SubtractWithNonNegativeResult: `a - b` per name of `a`, never below zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [name, value] of Object.entries(a)) {
    const diff = nanos(value) - nanos(b[name]);
    out[name] = quantityFromNanos(diff > 0n ? diff : 0n, isBinary(value));
  }
  return out;
}

/** quota.Mask: only the names given. */
export function maskList(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {};
  for (const name of names) if (name in list) out[name] = list[name];
  return out;
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [name, value] of Object.entries(list)) if (nanos(value) !== 0n) out[name] = value;
  return out;
}

/** quota.IsNegative: the names whose amount is below zero. */
export function negativeNames(list: ResourceList): string[] {
  return Object.keys(list).filter((name) => nanos(list[name]) < 0n);
}

/** quota.LessThanOrEqual: whether each amount of `a` that `b` bounds is within it, and the names that are not. */
export function withinBounds(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded = Object.keys(a).filter((name) => name in b && nanos(a[name]) > nanos(b[name]));
  return { allowed: exceeded.length === 0, exceeded };
}

/** quota.Equals: the same names with the same amounts. */
export function listsEqual(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const names = Object.keys(x);
  return names.length === Object.keys(y).length && names.every((name) => name in y && nanos(x[name]) === nanos(y[name]));
}

/** The admission refusal's `k=v,k2=v2`, sorted by name (prettyPrint). */
export function formatResourceList(list: ResourceList): string {
  return Object.keys(list)
    .sort()
    .map((name) => `${name}=${canonicalQuantity(list[name]) ?? String(list[name])}`)
    .join(',');
}

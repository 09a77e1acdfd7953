/**
 * Resource quantities (`100m`, `1.5Gi`, `2e3`, or a JSON number), read as Kubernetes' resource.Quantity
 * reads them. Values are worked out exactly with BigInt and saturate at Number.MAX_SAFE_INTEGER, so a
 * hostile exponent (`1e999999999`) costs nothing.
 */

/**
 * What Kubernetes says of text that is not a quantity (resource.ErrFormatWrong). It fails when the body
 * is decoded, so a built-in kind answers 400, as for a value of the wrong type.
 */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE])|[eE]([+-]?\d+))?$/;

const BINARY_POWER: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_EXPONENT: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Past this decimal exponent every value is beyond any scheduling use: it saturates. */
const MAX_DECIMAL_EXPONENT = 40;
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b < a ? q + 1n : q;
}

/** What a value past MAX_DECIMAL_EXPONENT is held as: larger than any quantity the exponent cap lets through. */
const BEYOND = 10n ** BigInt(MAX_DECIMAL_EXPONENT * 2);

function saturate(value: bigint): number {
  if (value > MAX) return Number(MAX);
  return value < -MAX ? -Number(MAX) : Number(value);
}

/**
 * The quantity times `scale` (1000 for milli-units), rounded up as Kubernetes' MilliValue and Value
 * round, exactly; undefined when it is not a quantity.
 */
function exactScaledValue(quantity: unknown, scale: bigint): bigint | undefined {
  const text = typeof quantity === 'number' ? (Number.isFinite(quantity) ? String(quantity) : '') : typeof quantity === 'string' ? quantity.trim() : '';
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign, number, binary, decimal, exponent] = match;
  const signed = (value: bigint) => (sign === '-' ? -value : value);
  const [whole, fraction = ''] = number.split('.');
  let mantissa = BigInt((whole || '0') + fraction);
  let tenPower = -fraction.length;
  if (binary !== undefined) mantissa *= 1n << BigInt(BINARY_POWER[binary]);
  else if (decimal !== undefined) tenPower += DECIMAL_EXPONENT[decimal];
  else if (exponent !== undefined) {
    const e = Number(exponent);
    if (!Number.isSafeInteger(e) || e > MAX_DECIMAL_EXPONENT) return mantissa === 0n ? 0n : signed(BEYOND);
    tenPower += Math.max(e, -MAX_DECIMAL_EXPONENT * 2);
  }
  mantissa *= scale;
  if (mantissa === 0n) return 0n;
  if (tenPower > MAX_DECIMAL_EXPONENT) return signed(BEYOND);
  return signed(tenPower >= 0 ? mantissa * 10n ** BigInt(tenPower) : ceilDiv(mantissa, 10n ** BigInt(-tenPower)));
}

/** The same as a number, saturating at Number.MAX_SAFE_INTEGER. */
function scaledValue(quantity: unknown, scale: bigint): number | undefined {
  const value = exactScaledValue(quantity, scale);
  return value === undefined ? undefined : saturate(value);
}

/**
 * Billionths of the quantity, exactly (Kubernetes keeps a quantity to the nano, rounding up below
 * it): for comparing and adding quantities as Kubernetes' Quantity.Cmp and Add do.
 */
export function quantityNanoValue(quantity: unknown): bigint | undefined {
  return exactScaledValue(quantity, 1_000_000_000n);
}

/** Thousandths of the quantity, rounded up (`100m` CPU is 100, `1` is 1000). */
export function quantityMilliValue(quantity: unknown): number | undefined {
  return scaledValue(quantity, 1000n);
}

/** The quantity as a whole number, rounded up (`1Gi` is 1073741824, `500m` is 1). */
export function quantityValue(quantity: unknown): number | undefined {
  return scaledValue(quantity, 1n);
}

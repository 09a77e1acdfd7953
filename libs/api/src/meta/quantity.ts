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
 * A quantity's exact value, mantissa × 10^exp10 × 2^exp2, and the format its suffix chose (a binary
 * suffix, a decimal one or none, or an exponent), as Kubernetes' resource.ParseQuantity reads it.
 */
export interface QuantityParts {
  mantissa: bigint;
  exp10: number;
  exp2: number;
  format: 'BinarySI' | 'DecimalSI' | 'DecimalExponent';
}

/** Kubernetes' quantity grammar; undefined when `quantity` (text or a JSON number) is not a quantity. */
export function parseQuantity(quantity: unknown): QuantityParts | undefined {
  const text = typeof quantity === 'number' ? (Number.isFinite(quantity) ? String(quantity) : '') : typeof quantity === 'string' ? quantity.trim() : '';
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign, number, binary, decimal, exponent] = match;
  const [whole, fraction = ''] = number.split('.');
  const digits = BigInt((whole || '0') + fraction);
  const mantissa = sign === '-' ? -digits : digits;
  if (binary !== undefined) return { mantissa, exp10: -fraction.length, exp2: BINARY_POWER[binary], format: 'BinarySI' };
  if (exponent !== undefined) return { mantissa, exp10: Number(exponent) - fraction.length, exp2: 0, format: 'DecimalExponent' };
  return { mantissa, exp10: (decimal === undefined ? 0 : DECIMAL_EXPONENT[decimal]) - fraction.length, exp2: 0, format: 'DecimalSI' };
}

/**
 * The quantity times `scale` (1000 for milli-units), rounded up as Kubernetes' MilliValue and Value
 * round, exactly; undefined when it is not a quantity.
 */
function exactScaledValue(quantity: unknown, scale: bigint): bigint | undefined {
  const parts = parseQuantity(quantity);
  if (parts === undefined) return undefined;
  const negative = parts.mantissa < 0n;
  const signed = (value: bigint) => (negative ? -value : value);
  if (parts.mantissa === 0n) return 0n;
  if (!Number.isSafeInteger(parts.exp10) || parts.exp10 > MAX_DECIMAL_EXPONENT) return signed(BEYOND);
  const tenPower = Math.max(parts.exp10, -MAX_DECIMAL_EXPONENT * 2);
  const magnitude = (negative ? -parts.mantissa : parts.mantissa) * (1n << BigInt(parts.exp2)) * scale;
  return signed(tenPower >= 0 ? magnitude * 10n ** BigInt(tenPower) : ceilDiv(magnitude, 10n ** BigInt(-tenPower)));
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

const BINARY_SUFFIX_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_SUFFIX_BY_EXPONENT: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };

/** Past this exponent a quantity is left as written rather than spelt out digit by digit. */
const MAX_CANONICAL_EXPONENT = 100;

/**
 * The quantity as Kubernetes' Quantity.String() writes it, which is how it stores and answers it:
 * rounded up to the nano, in the format its suffix chose (binary `Ki`..`Ei`, decimal `n`..`E`, or an
 * `e` exponent), with the largest suffix that keeps the number whole (`0.5` is `500m`, `1024Mi` is
 * `1Gi`, `1000` is `1k`, `1536Mi` stays, `512` of a binary format is `512`). Undefined when it is not a
 * quantity.
 */
export function canonicalQuantity(quantity: unknown): string | undefined {
  const parts = parseQuantity(quantity);
  if (parts === undefined) return undefined;
  if (Math.abs(parts.exp10) > MAX_CANONICAL_EXPONENT) return String(quantity).trim();
  // The value, rounded away from zero to the nano as Kubernetes parses it.
  let tenPower = parts.exp10;
  let magnitude = (parts.mantissa < 0n ? -parts.mantissa : parts.mantissa) * (1n << BigInt(parts.exp2));
  if (tenPower < -9) {
    magnitude = ceilDiv(magnitude, 10n ** BigInt(-9 - tenPower));
    tenPower = -9;
  }
  if (magnitude === 0n) return '0';
  while (magnitude % 10n === 0n) {
    magnitude /= 10n;
    tenPower++;
  }
  const negative = parts.mantissa < 0n ? '-' : '';
  if (parts.format === 'BinarySI' && tenPower >= 0) {
    const value = magnitude * 10n ** BigInt(tenPower);
    if (value >= 1024n) {
      let power = 0;
      let amount = value;
      while (amount % 1024n === 0n && power < BINARY_SUFFIX_BY_POWER.length - 1) {
        amount /= 1024n;
        power++;
      }
      return `${negative}${amount}${BINARY_SUFFIX_BY_POWER[power]}`;
    }
  }
  // Decimal: the exponent a multiple of three, the number grown to match.
  const extra = ((tenPower % 3) + 3) % 3;
  tenPower -= extra;
  magnitude *= 10n ** BigInt(extra);
  if (parts.format === 'DecimalExponent') return `${negative}${magnitude}${tenPower === 0 ? '' : `e${tenPower}`}`;
  const suffix = DECIMAL_SUFFIX_BY_EXPONENT[tenPower];
  return suffix === undefined ? `${negative}${magnitude}e${tenPower}` : `${negative}${magnitude}${suffix}`;
}

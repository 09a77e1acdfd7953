import type { FlagType } from './flag-type';

/** Milliseconds; fractions carry sub-millisecond precision. */
export type Millis = number;

const NANOS_PER_UNIT: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_NANOS = (1n << 63n) - 1n;
const NANOS_PER_MILLI = 1_000_000n;

/** Parses Go's duration syntax (`1h30m`, `1.5h`, `300us`, `-1s`, `0`) into integer nanoseconds, with Go's messages. */
export function parseGoDurationNanos(text: string): bigint {
  const quoted = JSON.stringify(text);
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw new Error(`time: invalid duration ${quoted}`);
  let total = 0n;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2] ?? '';
    if (!number || (whole === '' && fraction === '')) throw new Error(`time: invalid duration ${quoted}`);
    rest = rest.slice(number[0].length);
    const unitMatch = /^[^\d.]+/.exec(rest);
    if (!unitMatch) throw new Error(`time: missing unit in duration ${quoted}`);
    const unitName = unitMatch[0];
    const unit = NANOS_PER_UNIT[unitName];
    if (unit === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unitName)} in duration ${quoted}`);
    rest = rest.slice(unitName.length);
    let value = BigInt(whole === '' ? '0' : whole) * unit;
    if (fraction !== '') value += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    total += value;
    if (total > MAX_NANOS) throw new Error(`time: invalid duration ${quoted}`);
  }
  return negative ? -total : total;
}

function millisToNanos(ms: Millis): bigint {
  const whole = Math.trunc(ms);
  return BigInt(whole) * NANOS_PER_MILLI + BigInt(Math.round((ms - whole) * 1e6));
}

/** `digits` rendered as `int.frac` with `decimals` fraction digits, trailing zeros (and a bare point) dropped. */
function withFraction(value: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const fraction = (value % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${value / scale}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Nanoseconds rendered exactly as Go's time.Duration.String(): `1h0m0s`, `5m0s`, `2s`, `500ms`, `300µs`, `0s`. */
export function formatGoDurationNanos(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const u = nanos < 0n ? -nanos : nanos;
  if (u < 1_000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${withFraction(u, 3)}µs`;
  if (u < 1_000_000_000n) return `${sign}${withFraction(u, 6)}ms`;
  const hours = u / NANOS_PER_UNIT.h;
  const minutes = (u % NANOS_PER_UNIT.h) / NANOS_PER_UNIT.m;
  const seconds = withFraction(u % NANOS_PER_UNIT.m, 9);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Go duration text to milliseconds. */
export function parseDuration(text: string): Millis {
  const nanos = parseGoDurationNanos(text);
  const whole = nanos / NANOS_PER_MILLI;
  return Number(whole) + Number(nanos - whole * NANOS_PER_MILLI) / 1e6;
}

/** Milliseconds to Go duration text. */
export function formatDuration(ms: Millis): string {
  return formatGoDurationNanos(millisToNanos(ms));
}

/** `duration`: Go's time.Duration syntax; the value is in milliseconds. */
export const duration: FlagType<Millis> = {
  name: 'duration',
  requiresValue: true,
  parse: (raw) => parseDuration(raw),
  format: formatDuration,
};

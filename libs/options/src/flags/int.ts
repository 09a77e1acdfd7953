import type { FlagType } from './flag-type';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * Go's strconv.ParseInt(text, 0, 64) syntax: optional sign, then decimal, `0x` hex, `0o`/`0` octal or
 * `0b` binary, underscores only between digits. Go flags accept exactly this, so `010` is eight.
 */
export function parseGoInt(text: string): bigint {
  const match = /^([+-]?)(0[xX]|0[oO]|0[bB]|0(?=.))?([0-9a-fA-F_]+)$/.exec(text);
  if (!match) throw new Error(`parsing ${JSON.stringify(text)}: invalid syntax`);
  const [, sign, prefix = '', body] = match;
  const base = /^0[xX]$/.test(prefix) ? 16 : /^0[bB]$/.test(prefix) ? 2 : prefix === '' ? 10 : 8;
  // An underscore must separate digits (or follow a base prefix); it may not lead, trail or double.
  const underscoresOk = !body.includes('_') || (/^_?[^_]+(_[^_]+)*$/.test(body) && (prefix !== '' || !body.startsWith('_')));
  const digits = body.replace(/_/g, '');
  const digitSet = '0123456789abcdef'.slice(0, base);
  if (!underscoresOk || digits === '' || ![...digits.toLowerCase()].every((d) => digitSet.includes(d))) {
    throw new Error(`parsing ${JSON.stringify(text)}: invalid syntax`);
  }
  const magnitude = [...digits.toLowerCase()].reduce((acc, d) => acc * BigInt(base) + BigInt(digitSet.indexOf(d)), 0n);
  return sign === '-' ? -magnitude : magnitude;
}

function bounded(text: string, min: number, max: number): number {
  const value = parseGoInt(text);
  if (value < BigInt(min) || value > BigInt(max)) throw new Error(`parsing ${JSON.stringify(text)}: value out of range`);
  return Number(value);
}

/** `int`: a whole number; bounded to what a JS number holds exactly rather than to 64 bits. */
export const int: FlagType<number> = {
  name: 'int',
  requiresValue: true,
  parse: (raw) => bounded(raw, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  format: (value) => String(value),
};

/** `int32`: a whole number in -2^31..2^31-1. */
export const int32: FlagType<number> = {
  name: 'int32',
  requiresValue: true,
  parse: (raw) => bounded(raw, INT32_MIN, INT32_MAX),
  format: (value) => String(value),
};

import { JsonValue, isJsonObject } from '../patch';

/** Orders strings by code point, which is the byte order of their UTF-8 form (Go's string order). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800..U+DFFF) encode code points above U+FFFF and must sort after U+E000..U+FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length < 0 ? -1 : a.length === b.length ? 0 : 1;
}

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
  '\b': '\\u0008',
  '\f': '\\u000c',
};

/** A JSON string literal as Go's encoding/json writes it (HTML-safe), which fieldsV1 keys embed. */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]|\\[bf]/g, (m) => GO_ESCAPES[m.length === 2 ? (m[1] === 'b' ? '\b' : '\f') : m]);
}

/** Compact JSON with sorted object keys and Go's string escaping. */
export function goJson(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return goJsonString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  const keys = Object.keys(value).sort(compareStrings);
  return `{${keys.map((k) => `${goJsonString(k)}:${goJson(value[k])}`).join(',')}}`;
}

/**
 * Go's `%v` of a number as structured-merge-diff holds it: integers print plainly, other floats
 * with their shortest digits and in exponent form when the exponent is below -4 or from 6 on.
 */
function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const [mantissa, exponent] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/** structured-merge-diff's `value.ToString`, used when a field path is printed. */
export function valueToString(value: JsonValue, quote: (s: string) => string): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return goFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => valueToString(v, quote)).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort(compareStrings);
    return `{${keys.map((k) => `${k}=${valueToString(value[k], quote)}`).join(',')}}`;
  }
  return String(value);
}

/**
 * Go's `%q` formatting of a string. Kubernetes messages quote names and values this way, and
 * clients compare those messages, so the escaping must match rather than JSON's.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (cp < 0x20 || cp === 0x7f) {
      out += `\\x${cp.toString(16).padStart(2, '0')}`;
    } else if ((cp >= 0x80 && cp < 0xa0) || cp === 0xad || (cp >= 0xd800 && cp <= 0xdfff)) {
      out += cp > 0xff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\u00${cp.toString(16).padStart(2, '0')}`;
    } else {
      out += ch;
    }
  }
  return out + '"';
}

/**
 * Go's `%v` of a float64 (strconv's shortest 'g' form): `1.5`, `100000`, but `1e+06` and `1e-05`.
 * Kubernetes prints schema bounds and values this way when the JSON number was not an integer.
 */
export function goFormatFloat(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}

/**
 * Go's `%#v` of a value decoded from JSON into `interface{}` (strings, float64 or int64 numbers, bools,
 * `[]interface {}`, `map[string]interface {}` with sorted keys), as Kubernetes prints some bad values.
 */
export function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFormatFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  if (typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${goQuote(k)}:${goSyntax((value as Record<string, unknown>)[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return typeof value === 'bigint' ? value.toString() : '';
}

/**
 * The schedule grammar of a CronJob, as Kubernetes reads it (robfig/cron v3's ParseStandard): five
 * fields (minute, hour, day of month, month, day of week), each a comma-separated list of `*` or `?`,
 * a number or name, a range `a-b`, optionally stepped `/n`; or a descriptor (@yearly, @annually,
 * @monthly, @weekly, @daily, @midnight, @hourly, `@every <duration>`); optionally led by
 * `TZ=<zone>` or `CRON_TZ=<zone>`. Errors are worded as that parser words them, since clients
 * show them and match them. npm's cron parsers accept another grammar (seconds, `L`, `#`, a
 * Sunday 7), so the grammar is written here.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DAYS_OF_MONTH: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DAYS_OF_WEEK: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const FIELDS: readonly Bounds[] = [MINUTES, HOURS, DAYS_OF_MONTH, MONTHS, DAYS_OF_WEEK];

/** The times a field allows, and whether it was a bare `*` or `?` (day of month and day of week combine by it). */
export interface CronField {
  values: ReadonlySet<number>;
  star: boolean;
}

export type CronSchedule =
  | { kind: 'fields'; minute: CronField; hour: CronField; dayOfMonth: CronField; month: CronField; dayOfWeek: CronField; timeZone?: string }
  /** `@every <duration>`: every so many milliseconds (rounded down to whole seconds, at least one), from a start. */
  | { kind: 'every'; everyMs: number; timeZone?: string };

export class CronScheduleError extends Error {}

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Parses a CronJob schedule; throws a CronScheduleError with robfig/cron's message when it is not valid. */
export function parseCronSchedule(input: string, isTimeZone: (zone: string) => boolean = isIanaTimeZone): CronSchedule {
  let spec = input;
  if (spec.length === 0) throw new CronScheduleError('empty spec string');
  let timeZone: string | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? spec.length : space);
    if (!isTimeZone(zone)) throw new CronScheduleError(`provided bad location ${zone}: unknown time zone ${zone}`);
    timeZone = zone;
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return parseDescriptor(spec, timeZone);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== FIELDS.length) {
    throw new CronScheduleError(`expected exactly ${FIELDS.length} fields, found ${fields.length}: [${fields.join(' ')}]`);
  }
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields.map((field, i) => parseField(field, FIELDS[i]));
  return { kind: 'fields', minute, hour, dayOfMonth, month, dayOfWeek, ...(timeZone !== undefined && { timeZone }) };
}

function parseDescriptor(spec: string, timeZone: string | undefined): CronSchedule {
  const fields = DESCRIPTORS[spec];
  if (fields !== undefined) return { ...parseCronSchedule(fields), ...(timeZone !== undefined && { timeZone }) };
  const every = '@every ';
  if (spec.startsWith(every)) {
    const duration = parseGoDuration(spec.slice(every.length));
    if ('error' in duration) throw new CronScheduleError(`failed to parse duration ${spec}: ${duration.error}`);
    const ms = duration.ms;
    // cron.Every: below a second is a second; the rest is truncated to whole seconds.
    const everyMs = ms < 1000 ? 1000 : ms - (ms % 1000);
    return { kind: 'every', everyMs, ...(timeZone !== undefined && { timeZone }) };
  }
  throw new CronScheduleError(`unrecognized descriptor: ${spec}`);
}

function parseField(field: string, bounds: Bounds): CronField {
  const values = new Set<number>();
  let star = false;
  for (const range of field.split(',').filter((r) => r !== '')) {
    const parsed = parseRange(range, bounds);
    parsed.values.forEach((v) => values.add(v));
    star ||= parsed.star;
  }
  return { values, star };
}

/** One range: `*`, `?`, `n`, `a-b`, each optionally `/step`. */
function parseRange(expr: string, bounds: Bounds): CronField {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0], bounds.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], bounds.names);
    else throw new CronScheduleError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseNonNegativeInt(rangeAndStep[1]);
    // `n/step` means from n to the field's end.
    if (single) end = bounds.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) {
    throw new CronScheduleError(`too many slashes: ${expr}`);
  }
  if (start < bounds.min) throw new CronScheduleError(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new CronScheduleError(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new CronScheduleError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronScheduleError(`step of range should be a positive number: ${expr}`);
  const values = new Set<number>();
  for (let v = start; v <= end; v += step) values.add(v);
  return { values, star };
}

function parseIntOrName(expr: string, names: Bounds['names']): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? parseNonNegativeInt(expr);
}

/** Go's strconv.Atoi, then the parser's refusal of negatives, with their messages. */
function parseNonNegativeInt(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new CronScheduleError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuoted(expr)}: invalid syntax`);
  const num = Number(expr);
  if (!Number.isSafeInteger(num) || Math.abs(num) > 2 ** 63 - 1) {
    throw new CronScheduleError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuoted(expr)}: value out of range`);
  }
  if (num < 0) throw new CronScheduleError(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function goQuoted(value: string): string {
  return JSON.stringify(value);
}

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration (`1h30m`, `90s`, `1.5h`), in milliseconds, or its error message. */
export function parseGoDuration(text: string): { ms: number } | { error: string } {
  const invalid = { error: `time: invalid duration ${goQuoted(text)}` };
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return { ms: 0 };
  if (rest === '') return invalid;
  let total = 0;
  while (rest !== '') {
    const number = /^[0-9]*(\.[0-9]*)?/.exec(rest)![0];
    if (number === '' || number === '.') return invalid;
    rest = rest.slice(number.length);
    const unit = /^[^0-9.]*/.exec(rest)![0];
    if (unit === '') return { error: `time: missing unit in duration ${goQuoted(text)}` };
    const scale = UNIT_MS[unit];
    if (scale === undefined) return { error: `time: unknown unit ${goQuoted(unit)} in duration ${goQuoted(text)}` };
    total += Number(number) * scale;
    rest = rest.slice(unit.length);
  }
  return { ms: sign * total };
}

/**
 * Whether `zone` names a time zone of the IANA database, as Go's time.LoadLocation finds one: the
 * runtime's ICU data knows the same names (and aliases such as US/Eastern), but matches them without
 * regard to case, which Go's lookup of a file by name does not; a canonical name in another case is refused.
 */
export function isIanaTimeZone(zone: string): boolean {
  if (zone === '' || zone.toLowerCase() === 'local') return false;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
}

/** A file name component of an IANA zone name, with the digits and `+` of legacy names. */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/**
 * Kubernetes' validateTimeZone: the error detail for a CronJob's `timeZone`, or undefined when it is
 * valid. `unknown time zone` is Go's own message for a name it does not find.
 */
export function timeZoneError(zone: string): string | undefined {
  if (zone.length === 0) return 'timeZone must be nil or non-empty string';
  for (const part of zone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part)) return `unknown time zone ${zone}`;
  }
  if (zone.toLowerCase() === 'local') return 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones';
  return isIanaTimeZone(zone) ? undefined : `unknown time zone ${zone}`;
}

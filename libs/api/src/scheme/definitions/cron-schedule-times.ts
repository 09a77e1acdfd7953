import type { CronField, CronSchedule } from './cron-schedule';

/**
 * When a parsed CronJob schedule fires, as robfig/cron v3 (Kubernetes' cron library) computes it: the
 * first time strictly after a given instant, walked month, day, hour, minute, second on the wall
 * clock of the schedule's time zone, so that daylight-saving changes skip or repeat what they skip or
 * repeat there. Instants are milliseconds since the epoch; the schedules fire on whole seconds.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** How far ahead robfig/cron looks before it decides a schedule never fires (a 30 February). */
const YEARS_AHEAD = 5;

/** A wall-clock reading in one time zone (month 1-12, weekday 0 = Sunday). */
interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

function isUtc(zone: string): boolean {
  return zone === 'UTC' || zone === 'Etc/UTC';
}

/** The wall clock of `zone` at instant `ms`. */
function wallClock(zone: string, ms: number): WallClock {
  const seconds = Math.floor(ms / SECOND) * SECOND;
  const utc = seconds + (isUtc(zone) ? 0 : offsetMs(zone, seconds));
  const d = new Date(utc);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

/** How far `zone`'s wall clock is ahead of UTC at instant `ms` (a whole second). */
function offsetMs(zone: string, ms: number): number {
  if (isUtc(zone)) return 0;
  const parts: Record<string, string> = {};
  for (const part of formatterOf(zone).formatToParts(ms)) parts[part.type] = part.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const wall = Date.UTC(year, Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  // Date.UTC reads years 0-99 as 1900-1999.
  const fixed = year >= 0 && year < 100 ? new Date(wall).setUTCFullYear(year) : wall;
  return fixed - Math.floor(ms / SECOND) * SECOND;
}

/**
 * Go's time.Date in `zone`: the instant of a wall-clock reading, out-of-range fields carried over
 * (a 13th month is January of the next year). A reading that daylight saving skips or repeats takes
 * the offset Go takes: the one in force just before the change when the reading is skipped.
 */
function instantOf(zone: string, year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const wall = date.getTime();
  if (isUtc(zone)) return wall;
  const first = offsetMs(zone, wall);
  const guess = wall - first;
  const then = offsetMs(zone, guess);
  return then === first ? guess : wall - then;
}

/** Go's Time.AddDate on the wall clock of `zone`. */
function addDate(zone: string, ms: number, months: number, days: number): number {
  const w = wallClock(zone, ms);
  return instantOf(zone, w.year, w.month + months, w.day + days, w.hour, w.minute, w.second);
}

function dayMatches(schedule: Extract<CronSchedule, { kind: 'fields' }>, w: WallClock): boolean {
  const dom = schedule.dayOfMonth.values.has(w.day);
  const dow = schedule.dayOfWeek.values.has(w.weekday);
  // A `*` in either field makes the two combine by "and"; two restricted fields fire on either.
  if (schedule.dayOfMonth.star || schedule.dayOfWeek.star) return dom && dow;
  return dom || dow;
}

function has(field: CronField, value: number): boolean {
  return field.values.has(value);
}

/** The time zone the controller manager's process runs in, where a schedule names none. */
export function localTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * The first time the schedule fires strictly after `afterMs`, or undefined when it never fires in
 * the next five years (robfig/cron's zero time). A schedule without a time zone reads its fields in
 * `defaultZone` (Kubernetes: the controller manager's own zone).
 */
export function nextCronTime(schedule: CronSchedule, afterMs: number, defaultZone: string = localTimeZone()): number | undefined {
  if (schedule.kind === 'every') return Math.floor(afterMs / SECOND) * SECOND + schedule.everyMs;
  const zone = schedule.timeZone ?? defaultZone;
  // The earliest candidate is the next whole second.
  let t = Math.floor(afterMs / SECOND) * SECOND + SECOND;
  let added = false;
  const yearLimit = wallClock(zone, t).year + YEARS_AHEAD;

  wrap: for (;;) {
    let w = wallClock(zone, t);
    if (w.year > yearLimit) return undefined;

    while (!has(schedule.month, w.month)) {
      if (!added) {
        added = true;
        t = instantOf(zone, w.year, w.month, 1, 0, 0, 0);
      }
      t = addDate(zone, t, 1, 0);
      w = wallClock(zone, t);
      if (w.month === 1) continue wrap;
    }

    while (!dayMatches(schedule, w)) {
      if (!added) {
        added = true;
        t = instantOf(zone, w.year, w.month, w.day, 0, 0, 0);
      }
      t = addDate(zone, t, 0, 1);
      w = wallClock(zone, t);
      // Midnight moved by a daylight-saving change: back to midnight (or on to the next one).
      if (w.hour !== 0) {
        t += w.hour > 12 ? (24 - w.hour) * HOUR : -w.hour * HOUR;
        w = wallClock(zone, t);
      }
      if (w.day === 1) continue wrap;
    }

    while (!has(schedule.hour, w.hour)) {
      if (!added) {
        added = true;
        t = instantOf(zone, w.year, w.month, w.day, w.hour, 0, 0);
      }
      t += HOUR;
      w = wallClock(zone, t);
      if (w.hour === 0) continue wrap;
    }

    while (!has(schedule.minute, w.minute)) {
      if (!added) {
        added = true;
        t = Math.floor(t / MINUTE) * MINUTE;
      }
      t += MINUTE;
      w = wallClock(zone, t);
      if (w.minute === 0) continue wrap;
    }

    // The standard grammar fires at second 0 only: on to the next minute, then check it all again.
    if (w.second !== 0) {
      t += (60 - w.second) * SECOND;
      continue wrap;
    }
    return t;
  }
}

function pad(value: number, width = 2): string {
  return String(Math.abs(value)).padStart(width, '0');
}

/**
 * Go's time.RFC3339 of instant `ms` read in `zone`: `2026-01-02T15:04:05+01:00`, and `Z` for any
 * zone at offset zero (whole seconds; an offset's seconds are dropped as Go drops them).
 */
export function formatRfc3339InZone(ms: number, zone: string): string {
  const w = wallClock(zone, ms);
  const offset = isUtc(zone) ? 0 : offsetMs(zone, ms);
  const date = `${w.year < 0 ? '-' : ''}${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
  if (offset === 0) return `${date}Z`;
  const minutes = Math.trunc(Math.abs(offset) / MINUTE);
  return `${date}${offset < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

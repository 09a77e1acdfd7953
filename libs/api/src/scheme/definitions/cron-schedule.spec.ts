import { parseCronSchedule, parseGoDuration, timeZoneError, type CronSchedule } from './cron-schedule';

const error = (schedule: string): string | undefined => {
  try {
    parseCronSchedule(schedule);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
};

const values = (s: CronSchedule, field: 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek') =>
  s.kind === 'fields' ? [...s[field].values].sort((a, b) => a - b) : [];

describe("a CronJob's schedule, as robfig/cron's ParseStandard reads it", () => {
  it('reads the five fields: lists, ranges, steps, names and stars', () => {
    const s = parseCronSchedule('*/15 9-17/4 1,15 JAN-mar mon-FRI');
    expect(values(s, 'minute')).toEqual([0, 15, 30, 45]);
    expect(values(s, 'hour')).toEqual([9, 13, 17]);
    expect(values(s, 'dayOfMonth')).toEqual([1, 15]);
    expect(values(s, 'month')).toEqual([1, 2, 3]);
    expect(values(s, 'dayOfWeek')).toEqual([1, 2, 3, 4, 5]);
    // `n/step` runs from n to the field's end; `?` is a star; a star stepped by more than 1 is no longer one.
    const t = parseCronSchedule('5/20 ? * * *');
    expect(values(t, 'minute')).toEqual([5, 25, 45]);
    expect(t.kind === 'fields' && [t.hour.star, t.minute.star]).toEqual([true, false]);
    expect(parseCronSchedule('  0   0 * * 0  ').kind).toBe('fields');
  });

  it('reads the descriptors and @every', () => {
    expect(values(parseCronSchedule('@hourly'), 'minute')).toEqual([0]);
    expect(values(parseCronSchedule('@weekly'), 'dayOfWeek')).toEqual([0]);
    expect(values(parseCronSchedule('@yearly'), 'month')).toEqual([1]);
    expect(parseCronSchedule('@every 1h30m')).toEqual({ kind: 'every', everyMs: 5_400_000 });
    // Below a second is a second; fractions of a second are dropped.
    expect(parseCronSchedule('@every 10ms')).toEqual({ kind: 'every', everyMs: 1000 });
    expect(parseCronSchedule('@every 1.5s')).toEqual({ kind: 'every', everyMs: 1000 });
  });

  it.each([
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['', 'empty spec string'],
    ['   ', 'expected exactly 5 fields, found 0: []'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['0 0 * * 7', 'end of range (7) above maximum (6): 7'],
    ['0 0 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'too many slashes: */2/3'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['* * * FOO *', 'failed to parse int from FOO: strconv.Atoi: parsing "FOO": invalid syntax'],
    ['*/-1 * * * *', 'negative number (-1) not allowed: -1'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['@every 1x', 'failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"'],
    ['@every 5', 'failed to parse duration @every 5: time: missing unit in duration "5"'],
    ['@every', 'unrecognized descriptor: @every'],
    ['CRON_TZ=Mars/Olympus 0 * * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
  ])('refuses %j: %s', (schedule, message) => {
    expect(error(schedule)).toBe(message);
  });

  it('takes a TZ= or CRON_TZ= prefix (the CronJob rules then refuse it)', () => {
    expect(parseCronSchedule('TZ=UTC 0 * * * *')).toMatchObject({ kind: 'fields', timeZone: 'UTC' });
    expect(parseCronSchedule('CRON_TZ=Asia/Tokyo @daily')).toMatchObject({ kind: 'fields', timeZone: 'Asia/Tokyo' });
  });

  it("reads Go's durations", () => {
    expect(parseGoDuration('2h45m0.5s')).toEqual({ ms: 9_900_500 });
    expect(parseGoDuration('-1.5m')).toEqual({ ms: -90_000 });
    expect(parseGoDuration('0')).toEqual({ ms: 0 });
    expect(parseGoDuration('')).toEqual({ error: 'time: invalid duration ""' });
    expect(parseGoDuration('.s')).toEqual({ error: 'time: invalid duration ".s"' });
  });
});

describe("a CronJob's time zone, as Kubernetes validates it", () => {
  it.each([
    ['America/New_York', undefined],
    ['Etc/GMT+5', undefined],
    ['US/Eastern', undefined],
    ['UTC', undefined],
    ['Bad/Zone', 'unknown time zone Bad/Zone'],
    ['america/new_york', 'unknown time zone america/new_york'],
    ['', 'timeZone must be nil or non-empty string'],
    ['Local', 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'],
    ['../etc/passwd', 'unknown time zone ../etc/passwd'],
    ['America/-New_York', 'unknown time zone America/-New_York'],
    ['Europe/AVeryLongCityName', 'unknown time zone Europe/AVeryLongCityName'],
  ])('%j: %s', (zone, message) => {
    expect(timeZoneError(zone)).toBe(message);
  });
});

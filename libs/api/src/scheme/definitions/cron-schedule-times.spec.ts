import { parseCronSchedule } from './cron-schedule';
import { formatRfc3339InZone, nextCronTime } from './cron-schedule-times';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The next `count` times the schedule fires after `from`, in UTC ISO form. */
function fires(schedule: string, from: string, count = 1, zone = 'UTC'): Array<string | undefined> {
  const parsed = parseCronSchedule(schedule);
  const times: Array<string | undefined> = [];
  let t: number | undefined = at(from);
  for (let i = 0; i < count && t !== undefined; i++) {
    t = nextCronTime(parsed, t, zone);
    times.push(iso(t));
  }
  return times;
}

describe('when a CronJob schedule fires (robfig/cron Next)', () => {
  it('is strictly after the instant given, on whole minutes', () => {
    expect(fires('*/1 * * * *', '2026-03-04T10:00:30.500Z', 2)).toEqual(['2026-03-04T10:01:00.000Z', '2026-03-04T10:02:00.000Z']);
    expect(fires('0 * * * *', '2026-03-04T10:00:00Z', 2)).toEqual(['2026-03-04T11:00:00.000Z', '2026-03-04T12:00:00.000Z']);
    expect(fires('*/15 9-17 * * *', '2026-03-04T17:45:00Z', 2)).toEqual(['2026-03-05T09:00:00.000Z', '2026-03-05T09:15:00.000Z']);
  });

  it('walks months, days and years, and the descriptors', () => {
    expect(fires('@monthly', '2026-01-31T12:00:00Z', 2)).toEqual(['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
    expect(fires('@yearly', '2026-06-01T00:00:00Z')).toEqual(['2027-01-01T00:00:00.000Z']);
    expect(fires('0 0 29 2 *', '2026-03-01T00:00:00Z')).toEqual(['2028-02-29T00:00:00.000Z']);
    expect(fires('@weekly', '2026-03-04T00:00:00Z')).toEqual(['2026-03-08T00:00:00.000Z']);
  });

  it('fires on either restricted day field, and on both when one is a star', () => {
    // The 13th or any Friday: 2026-03-06 is a Friday, 2026-03-13 both.
    expect(fires('0 0 13 * 5', '2026-03-01T00:00:00Z', 3)).toEqual(['2026-03-06T00:00:00.000Z', '2026-03-13T00:00:00.000Z', '2026-03-20T00:00:00.000Z']);
    // Fridays only: the day of month is a star.
    expect(fires('0 0 * * 5', '2026-03-07T00:00:00Z')).toEqual(['2026-03-13T00:00:00.000Z']);
  });

  it('gives up on a schedule that never fires within five years', () => {
    expect(nextCronTime(parseCronSchedule('0 0 30 2 *'), at('2026-01-01T00:00:00Z'), 'UTC')).toBeUndefined();
    expect(nextCronTime(parseCronSchedule('59 23 31 2 *'), at('2026-01-01T00:00:00Z'), 'UTC')).toBeUndefined();
  });

  it('adds @every to the whole second', () => {
    expect(fires('@every 90s', '2026-03-04T10:00:00.700Z', 2)).toEqual(['2026-03-04T10:01:30.000Z', '2026-03-04T10:03:00.000Z']);
  });

  it("reads the fields on the wall clock of the schedule's time zone", () => {
    expect(fires('0 9 * * *', '2026-03-04T00:00:00Z', 1, 'Europe/Paris')).toEqual(['2026-03-04T08:00:00.000Z']);
    expect(fires('0 9 * * *', '2026-07-04T00:00:00Z', 1, 'Europe/Paris')).toEqual(['2026-07-04T07:00:00.000Z']);
    expect(fires('30 9 * * *', '2026-03-04T00:00:00Z', 1, 'Asia/Kolkata')).toEqual(['2026-03-04T04:00:00.000Z']);
    // A zone in the schedule wins over the default one.
    expect(fires('TZ=Asia/Tokyo 0 0 * * *', '2026-03-04T00:00:00Z', 1, 'Europe/Paris')).toEqual(['2026-03-04T15:00:00.000Z']);
  });

  it('skips a time daylight saving skips, and fires twice at a time it repeats, as robfig/cron does', () => {
    // 2026-03-08 02:30 does not exist in New York: the next run is the day after.
    expect(fires('30 2 * * *', '2026-03-08T00:00:00Z', 1, 'America/New_York')).toEqual(['2026-03-09T06:30:00.000Z']);
    // 2026-11-01 01:30 happens in EDT, then again in EST.
    expect(fires('30 1 * * *', '2026-11-01T04:00:00Z', 3, 'America/New_York')).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T06:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
    // Midnights on either side of the change stay midnights.
    expect(fires('0 0 * * *', '2026-03-07T12:00:00Z', 2, 'America/New_York')).toEqual(['2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z']);
  });

  it("formats an instant as Go's RFC 3339 in a zone", () => {
    expect(formatRfc3339InZone(at('2026-03-04T10:01:00Z'), 'UTC')).toBe('2026-03-04T10:01:00Z');
    expect(formatRfc3339InZone(at('2026-03-04T10:01:00Z'), 'Asia/Kolkata')).toBe('2026-03-04T15:31:00+05:30');
    expect(formatRfc3339InZone(at('2026-07-04T10:01:00Z'), 'America/New_York')).toBe('2026-07-04T06:01:00-04:00');
    expect(formatRfc3339InZone(at('2026-01-04T10:01:00Z'), 'Europe/London')).toBe('2026-01-04T10:01:00Z');
  });
});

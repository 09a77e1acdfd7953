import { lastWrittenMs } from './event-expiry';

describe('lastWrittenMs', () => {
  it('takes the latest of creation, last and series times, event time and managed fields times', () => {
    const t = (s: string) => Date.parse(s);
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: 'e',
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'a', operation: 'Update' as const, time: '2026-01-01T00:05:00Z' }],
      },
      lastTimestamp: '2026-01-01T00:03:00Z',
    };
    expect(lastWrittenMs(event)).toBe(t('2026-01-01T00:05:00Z'));
    expect(lastWrittenMs({ ...event, series: { lastObservedTime: '2026-01-01T00:09:00.123456Z' } })).toBe(t('2026-01-01T00:09:00.123Z'));
    expect(lastWrittenMs({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'x' } })).toBe(0);
  });
});

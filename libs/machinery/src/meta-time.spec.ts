import { metaTime } from './meta-time';

describe('metaTime', () => {
  it('writes RFC 3339 in UTC with the fraction of a second dropped, from a Date or epoch milliseconds', () => {
    expect(metaTime(new Date('2026-12-07T16:05:31.987Z'))).toBe('2026-12-07T16:05:31Z');
    expect(metaTime(Date.UTC(2024, 0, 1, 0, 1, 0, 500))).toBe('2024-01-01T00:01:00Z');
  });
});

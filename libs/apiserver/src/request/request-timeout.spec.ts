import { StatusError } from '../status/status';
import { effectiveRequestTimeoutMs, parseTimeoutParameter, watchTimeoutSeconds } from './request-timeout';

describe('parseTimeoutParameter', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    ['500ms', 500],
    ['2h', 7_200_000],
    ['0', 0],
    ['+5s', 5_000],
    ['-5s', -5_000],
    ['1500us', 1.5],
  ])('%s is %d ms', (value, ms) => {
    expect(parseTimeoutParameter(value)).toBeCloseTo(ms);
  });

  it.each(['', 'soon', '10', '5 s', '1x', 's', '1m30'])('refuses %p with a 400 Status', (value) => {
    expect(() => parseTimeoutParameter(value)).toThrow(StatusError);
    try {
      parseTimeoutParameter(value);
    } catch (error) {
      expect((error as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'invalid timeout specified in the request URL' });
    }
  });
});

describe('effectiveRequestTimeoutMs', () => {
  it('uses the server timeout unless the request asks for a shorter positive one', () => {
    expect(effectiveRequestTimeoutMs(60_000, null)).toBe(60_000);
    expect(effectiveRequestTimeoutMs(60_000, '')).toBe(60_000);
    expect(effectiveRequestTimeoutMs(60_000, '10s')).toBe(10_000);
    expect(effectiveRequestTimeoutMs(60_000, '2m')).toBe(60_000);
    expect(effectiveRequestTimeoutMs(60_000, '0s')).toBe(60_000);
    expect(effectiveRequestTimeoutMs(60_000, '-1s')).toBe(60_000);
    expect(effectiveRequestTimeoutMs(0, '10s')).toBe(10_000);
  });
});

describe('watchTimeoutSeconds', () => {
  it('honours a requested timeout and otherwise picks one in [min, 2*min)', () => {
    expect(watchTimeoutSeconds(1800, 30)).toBe(30);
    for (let i = 0; i < 50; i++) {
      const seconds = watchTimeoutSeconds(1800);
      expect(seconds).toBeGreaterThanOrEqual(1800);
      expect(seconds).toBeLessThan(3600);
    }
  });
});

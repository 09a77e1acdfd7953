import { duration, formatDuration, parseDuration } from './duration';

describe('duration', () => {
  it.each([
    ['5m0s', 300_000],
    ['1h0m0s', 3_600_000],
    ['8760h0m0s', 31_536_000_000],
    ['2s', 2_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['300us', 0.3],
    ['300µs', 0.3],
    ['1500ns', 0.0015],
    ['0', 0],
    ['-1s', -1_000],
    ['+2m', 120_000],
    ['1h30m15.5s', 5_415_500],
    ['.5s', 500],
    ['1.s', 1_000],
  ])('parses %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
    expect(duration.parse(text, undefined)).toBeCloseTo(ms, 9);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['5', 'time: missing unit in duration "5"'],
    ['5x', 'time: unknown unit "x" in duration "5x"'],
    ['abc', 'time: invalid duration "abc"'],
    ['1h-5m', 'time: unknown unit "h-" in duration "1h-5m"'],
    ['.s', 'time: invalid duration ".s"'],
    ['-', 'time: invalid duration "-"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
  ])('rejects %j', (text, message) => {
    expect(() => parseDuration(text)).toThrow(message);
  });

  it.each([
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
    [31_536_000_000, '8760h0m0s'],
    [2_000, '2s'],
    [500, '500ms'],
    [0, '0s'],
    [1_500, '1.5s'],
    [43_200_000, '12h0m0s'],
    [5_400_000, '1h30m0s'],
    [0.3, '300µs'],
    [0.0015, '1.5µs'],
    [1.5, '1.5ms'],
    [-1_000, '-1s'],
    [61_001, '1m1.001s'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(duration.format(ms)).toBe(text);
  });

  it('round-trips through its own format', () => {
    for (const text of ['5m0s', '1h0m0s', '8760h0m0s', '2s', '500ms', '0s', '1m1.5s', '300µs']) {
      expect(formatDuration(parseDuration(text))).toBe(text);
    }
  });
});

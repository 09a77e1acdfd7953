import { formatPortRange, portRange, portRangeContains } from './port-range';

describe('portRange', () => {
  it.each([
    ['30000-32767', { base: 30000, size: 2768 }],
    ['80', { base: 80, size: 1 }],
    ['0-65535', { base: 0, size: 65536 }],
    ['1000+10', { base: 1000, size: 11 }],
    [' 10-20 ', { base: 10, size: 11 }],
  ])('parses %j', (text, range) => {
    expect(portRange.parse(text, undefined)).toEqual(range);
  });

  it.each([
    ['200-100', 'end port cannot be less than start port: 200-100'],
    ['1-65536', 'the port range cannot be greater than 65535: 1-65536'],
    ['70000', 'the port range cannot be greater than 65535'],
    ['-1', 'unable to parse port range: -1'],
    ['a-b', 'unable to parse port range: a-b'],
    ['', 'unable to parse port range'],
    ['1-2+3', 'unable to parse port range'],
  ])('rejects %j', (text, message) => {
    expect(() => portRange.parse(text, undefined)).toThrow(message);
  });

  it('formats inclusively and answers membership', () => {
    const range = { base: 30000, size: 2768 };
    expect(formatPortRange(range)).toBe('30000-32767');
    expect(portRangeContains(range, 32767)).toBe(true);
    expect(portRangeContains(range, 32768)).toBe(false);
    expect(portRangeContains(range, 29999)).toBe(false);
  });
});

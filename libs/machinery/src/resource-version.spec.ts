import { compareResourceVersions, formatResourceVersion, parseResourceVersion } from './resource-version';
import { isBadRequest } from './status-predicates';

describe('parseResourceVersion', () => {
  it.each([
    ['', 0],
    ['0', 0],
    ['1', 1],
    ['42', 42],
    ['007', 7],
    ['9007199254740991', 9007199254740991],
  ])('%j is %d', (rv, n) => {
    expect(parseResourceVersion(rv)).toBe(n);
  });

  it.each([
    ['abc', 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
    ['-1', 'resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'],
    ['+1', 'resourceVersion: Invalid value: "+1": strconv.ParseUint: parsing "+1": invalid syntax'],
    ['1.5', 'resourceVersion: Invalid value: "1.5": strconv.ParseUint: parsing "1.5": invalid syntax'],
    [' 1', 'resourceVersion: Invalid value: " 1": strconv.ParseUint: parsing " 1": invalid syntax'],
    ['9007199254740992', 'resourceVersion: Invalid value: "9007199254740992": strconv.ParseUint: parsing "9007199254740992": value out of range'],
  ])('rejects %j with a 400', (rv, message) => {
    let caught: unknown;
    try {
      parseResourceVersion(rv);
    } catch (err) {
      caught = err;
    }
    expect(isBadRequest(caught)).toBe(true);
    expect((caught as Error).message).toBe(message);
  });
});

describe('resourceVersion comparison and formatting', () => {
  it('compares numerically', () => {
    expect(compareResourceVersions('9', '10')).toBe(-1);
    expect(compareResourceVersions('10', '10')).toBe(0);
    expect(compareResourceVersions('11', '10')).toBe(1);
    expect(compareResourceVersions('', '0')).toBe(0);
    expect(() => compareResourceVersions('x', '1')).toThrow('invalid syntax');
  });

  it('formats as a decimal string', () => {
    expect(formatResourceVersion(123)).toBe('123');
    expect(parseResourceVersion(formatResourceVersion(123))).toBe(123);
  });
});

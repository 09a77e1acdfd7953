import { int, int32, parseGoInt } from './int';

describe('int and int32', () => {
  it.each([
    ['6443', 6443],
    ['-5', -5],
    ['+7', 7],
    ['0', 0],
    ['0x1F', 31],
    ['0o17', 15],
    ['017', 15],
    ['0b101', 5],
    ['1_000', 1000],
  ])('parses %s like Go strconv.ParseInt(s, 0, 64)', (text, value) => {
    expect(int.parse(text, undefined)).toBe(value);
    expect(Number(parseGoInt(text))).toBe(value);
  });

  it.each(['', 'x', '1.5', '12a', '08', '1__0', '_1', '1_', '0x', ' 1', '--1'])('rejects %j', (text) => {
    expect(() => int.parse(text, undefined)).toThrow('invalid syntax');
  });

  it('range-checks int32 to -2^31..2^31-1', () => {
    expect(int32.parse('2147483647', undefined)).toBe(2147483647);
    expect(int32.parse('-2147483648', undefined)).toBe(-2147483648);
    expect(() => int32.parse('2147483648', undefined)).toThrow('value out of range');
    expect(() => int32.parse('-2147483649', undefined)).toThrow('value out of range');
  });

  it('bounds int to exactly representable numbers', () => {
    expect(int.parse('9007199254740991', undefined)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => int.parse('9007199254740992', undefined)).toThrow('value out of range');
  });

  it('formats as decimal and shows its type name', () => {
    expect(int.format(6443)).toBe('6443');
    expect(int.name).toBe('int');
    expect(int32.name).toBe('int32');
  });
});

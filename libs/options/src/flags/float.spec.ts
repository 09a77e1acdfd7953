import { float } from './float';

describe('float', () => {
  it.each([
    ['0.1', 0.1],
    ['20', 20],
    ['-1', -1],
    ['.5', 0.5],
    ['1e-2', 0.01],
    ['2.5E3', 2500],
    ['0.02', 0.02],
  ])('parses %s', (text, value) => {
    expect(float.parse(text, undefined)).toBe(value);
  });

  it.each(['', 'abc', '1.2.3', 'NaN', 'Inf', '1e', '0x10', '1e999'])('rejects %j', (text) => {
    expect(() => float.parse(text, undefined)).toThrow(/invalid syntax|out of range/);
  });

  it('formats like Go %v for the defaults flags use', () => {
    expect([0.1, 20, 0.55, 0.01].map((v) => float.format(v))).toEqual(['0.1', '20', '0.55', '0.01']);
  });
});

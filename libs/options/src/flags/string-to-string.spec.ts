import { stringToString } from './string-to-string';

describe('stringToString', () => {
  it('parses k=v pairs and merges repeats, later keys winning', () => {
    const first = stringToString.parse('a=1,b=2', undefined);
    expect(first).toEqual({ a: '1', b: '2' });
    expect(stringToString.parse('b=3,c=4', first)).toEqual({ a: '1', b: '3', c: '4' });
  });

  it('keeps commas when there is a single pair, as metric label allow-lists need', () => {
    expect(stringToString.parse('apiserver_request_total,verb=GET,LIST', undefined)).toEqual({
      'apiserver_request_total,verb': 'GET,LIST',
    });
  });

  it('allows quoted values holding commas among several pairs', () => {
    expect(stringToString.parse('a=1,"b=x,y"', undefined)).toEqual({ a: '1', b: 'x,y' });
  });

  it('rejects text without =', () => {
    expect(() => stringToString.parse('novalue', undefined)).toThrow('novalue must be formatted as key=value');
    expect(() => stringToString.parse('a=1,b,c=2', undefined)).toThrow('b must be formatted as key=value');
  });

  it('formats with brackets, [] when empty', () => {
    expect(stringToString.format({})).toBe('[]');
    expect(stringToString.format({ a: '1' })).toBe('[a=1]');
  });
});

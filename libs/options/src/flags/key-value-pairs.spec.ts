import { keyValuePairs, mapStringBool } from './key-value-pairs';

describe('keyValuePairs', () => {
  it('reads a bare key as true for --runtime-config', () => {
    const runtimeConfig = keyValuePairs({ missingValue: 'true' });
    const first = runtimeConfig.parse('api/all=false, batch/v1 ', undefined);
    expect(first).toEqual({ 'api/all': 'false', 'batch/v1': 'true' });
    expect(runtimeConfig.parse('api/all', first)).toEqual({ 'api/all': 'true', 'batch/v1': 'true' });
  });

  it('requires = when no missing value is configured', () => {
    const claims = keyValuePairs();
    expect(claims.parse('hd=example.com', undefined)).toEqual({ hd: 'example.com' });
    expect(() => claims.parse('hd', undefined)).toThrow('malformed pair "hd", expect key=value');
  });

  it('rejects an empty key', () => {
    expect(() => keyValuePairs().parse('=x', undefined)).toThrow('has an empty key');
  });
});

describe('mapStringBool (feature gates)', () => {
  it('takes true and false in any letter case and merges repeats', () => {
    const first = mapStringBool.parse('A=true,B=False', undefined);
    expect(first).toEqual({ A: true, B: false });
    expect(mapStringBool.parse('B=TRUE,C=tRuE', first)).toEqual({ A: true, B: true, C: true });
  });

  it('also takes strconv.ParseBool spellings', () => {
    expect(mapStringBool.parse('A=1,B=f', undefined)).toEqual({ A: true, B: false });
  });

  it('rejects a missing or non-boolean value', () => {
    expect(() => mapStringBool.parse('A', undefined)).toThrow('missing bool value for A');
    expect(() => mapStringBool.parse('A=yes', undefined)).toThrow('invalid value of A=yes');
  });

  it('formats sorted pairs', () => {
    expect(mapStringBool.format({ b: false, a: true })).toBe('a=true,b=false');
  });
});

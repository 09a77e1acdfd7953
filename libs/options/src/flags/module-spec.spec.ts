import { moduleSpec } from './module-spec';

describe('moduleSpec (--vmodule)', () => {
  it('reads pattern=N entries and appends repeats', () => {
    const first = moduleSpec.parse('foo*=3,bar=2', undefined);
    expect(first).toEqual([
      { pattern: 'foo*', level: 3 },
      { pattern: 'bar', level: 2 },
    ]);
    expect(moduleSpec.parse('baz=0', first)).toHaveLength(3);
    expect(moduleSpec.format(first)).toBe('foo*=3,bar=2');
  });

  it.each(['foo', '=3', 'foo=x', 'foo=-1', 'foo=1.5'])('rejects %j', (text) => {
    expect(() => moduleSpec.parse(text, undefined)).toThrow('expect comma-separated list of pattern=N');
  });
});

import { readCsvRecord } from './csv-record';
import { strings, stringsOf } from './strings';

describe('strings', () => {
  it('splits on commas and appends repeats', () => {
    const first = strings.parse('a,b', undefined);
    expect(first).toEqual(['a', 'b']);
    expect(strings.parse('c', first)).toEqual(['a', 'b', 'c']);
  });

  it('reads CSV quoting so an entry may hold a comma', () => {
    expect(strings.parse('"a,b",c', undefined)).toEqual(['a,b', 'c']);
    expect(readCsvRecord('"say ""hi""",x')).toEqual(['say "hi"', 'x']);
  });

  it('treats the empty text as the empty list, which clears a default', () => {
    expect(strings.parse('', undefined)).toEqual([]);
  });

  it('rejects stray quotes', () => {
    expect(() => strings.parse('a"b', undefined)).toThrow('bare " in non-quoted-field');
    expect(() => strings.parse('"ab', undefined)).toThrow('extraneous or missing " in quoted-field');
    expect(() => strings.parse('"a"b', undefined)).toThrow('extraneous or missing " in quoted-field');
  });

  it('formats with brackets as pflag does', () => {
    expect(strings.format(['Hostname', 'InternalIP'])).toBe('[Hostname,InternalIP]');
    expect(strings.format([])).toBe('[]');
  });

  it('restricts stringsOf entries and can forbid duplicates', () => {
    const modes = stringsOf(['RBAC', 'Node', 'ABAC'], { unique: true });
    expect(modes.parse('Node,RBAC', undefined)).toEqual(['Node', 'RBAC']);
    expect(() => modes.parse('RBAC,Foo', undefined)).toThrow('"Foo" is not one of: RBAC, Node, ABAC');
    expect(() => modes.parse('RBAC', ['RBAC'])).toThrow('"RBAC" is given more than once');
  });
});

import { assertFieldsSupported, escapeFieldValue, FieldQuery, unescapeFieldValue } from './field-selector';
import { isBadRequest } from './status-predicates';

function rejection(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    expect(isBadRequest(err)).toBe(true);
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('FieldQuery.parse', () => {
  it.each([
    ['', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a=b'],
    ['a!=b', 'a!=b'],
    ['b=1,a=2', 'a=2,b=1'],
    ['a=b,,c=d', 'a=b,c=d'],
    [',', ''],
    ['a=', 'a='],
    ['metadata.name=x,spec.nodeName!=', 'metadata.name=x,spec.nodeName!='],
    ['a=x\\,y', 'a=x\\,y'],
    ['a=x\\=y', 'a=x\\=y'],
    ['a=x\\\\y', 'a=x\\\\y'],
  ])('parses %j and prints %j', (input, printed) => {
    expect(FieldQuery.parse(input).toString()).toBe(printed);
  });

  it('unescapes values and splits only on unescaped commas', () => {
    const q = FieldQuery.parse('spec.x=a\\,b\\=c\\\\d,metadata.name!=n');
    expect(q.requirements).toEqual([
      { field: 'metadata.name', operator: '!=', value: 'n' },
      { field: 'spec.x', operator: '=', value: 'a,b=c\\d' },
    ]);
  });

  it('splits at the first operator, leaves field names unescaped and does not trim', () => {
    expect(FieldQuery.parse('a = b').requirements).toEqual([{ field: 'a ', operator: '=', value: ' b' }]);
    expect(FieldQuery.parse('a\\==b').requirements).toEqual([{ field: 'a\\', operator: '=', value: 'b' }]);
  });

  it.each([
    ['abc', "invalid selector: 'abc'; can't understand 'abc'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a!==b', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b\\n', 'invalid field selector: invalid escape sequence: \\n'],
  ])('rejects %j with %j', (input, message) => {
    expect(rejection(() => FieldQuery.parse(input)).message).toBe(message);
  });
});

describe('FieldQuery matching', () => {
  const pod: Record<string, string> = { 'metadata.name': 'web-1', 'metadata.namespace': 'default', 'spec.nodeName': 'n1', 'status.phase': 'Running' };
  const get = (f: string): string | undefined => pod[f];

  it.each([
    ['metadata.name=web-1', true],
    ['metadata.name=web-2', false],
    ['metadata.name!=web-2', true],
    ['metadata.name=web-1,status.phase=Running', true],
    ['metadata.name=web-1,status.phase!=Running', false],
    ['spec.missing=', true],
    ['spec.missing!=', false],
    ['spec.missing=x', false],
    ['', true],
  ])('%j is %s', (selector, expected) => {
    expect(FieldQuery.parse(selector).matches(get)).toBe(expected);
    expect(FieldQuery.parse(selector).matches(pod)).toBe(expected);
  });

  it('matches escaped values literally', () => {
    expect(FieldQuery.parse('a=x\\,y').matches({ a: 'x,y' })).toBe(true);
  });

  it('everything, nothing, sets and conjunctions', () => {
    expect(FieldQuery.everything().matches({})).toBe(true);
    expect(FieldQuery.everything().isEmpty()).toBe(true);
    expect(FieldQuery.nothing().matches({})).toBe(false);
    expect(FieldQuery.nothing().matchesNothing()).toBe(true);
    expect(FieldQuery.fromSet({ b: '1', a: 'x,y' }).toString()).toBe('a=x\\,y,b=1');
    expect(FieldQuery.and(FieldQuery.oneTermEqual('a', '1'), FieldQuery.oneTermNotEqual('b', '2')).toString()).toBe('a=1,b!=2');
    expect(FieldQuery.and(FieldQuery.oneTermEqual('a', '1'), FieldQuery.nothing()).matchesNothing()).toBe(true);
    expect(FieldQuery.and().isEmpty()).toBe(true);
  });

  it('reports pinned values and rewrites terms', () => {
    const q = FieldQuery.parse('spec.host=n1,metadata.name!=x');
    expect(q.requiresExactMatch('spec.host')).toBe('n1');
    expect(q.requiresExactMatch('metadata.name')).toBeUndefined();
    const moved = q.transform((f, v) => (f === 'spec.host' ? ['spec.nodeName', v] : [f, v]));
    expect(moved.toString()).toBe('metadata.name!=x,spec.nodeName=n1');
    expect(q.toString()).toBe('metadata.name!=x,spec.host=n1');
  });
});

describe('supported fields', () => {
  it('lists the fields in use', () => {
    expect(FieldQuery.parse('b=1,a=2,a!=3').fields()).toEqual(['a', 'b']);
  });

  it('accepts universal and declared fields', () => {
    const q = FieldQuery.parse('metadata.name=a,metadata.namespace=b,spec.nodeName=c');
    expect(q.unsupportedFields(['spec.nodeName'])).toEqual([]);
    expect(() => assertFieldsSupported(q, ['spec.nodeName'])).not.toThrow();
  });

  it('rejects other fields with Kubernetes message', () => {
    const q = FieldQuery.parse('metadata.name=a,spec.foo=b');
    expect(q.unsupportedFields([])).toEqual(['spec.foo']);
    expect(rejection(() => assertFieldsSupported(q, [])).message).toBe('field label not supported: spec.foo');
  });
});

describe('escaping', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', 'a\\,b'],
    ['a=b', 'a\\=b'],
    ['a\\b', 'a\\\\b'],
    ['\\,=', '\\\\\\,\\='],
  ])('%j escapes to %j and back', (raw, escaped) => {
    expect(escapeFieldValue(raw)).toBe(escaped);
    expect(unescapeFieldValue(escaped)).toBe(raw);
  });
});

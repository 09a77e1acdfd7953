import { JsonObject, JsonValue, PatchError, createMergePatch, mergePatch } from './index';
import { thrownBy } from '../testing/thrown-by';

const refusal = (run: () => unknown): PatchError => thrownBy(run, PatchError);

describe('mergePatch', () => {
  // RFC 7386 appendix A, the rows whose target and result are objects.
  const appendix: Array<[JsonObject, JsonValue, JsonObject]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];

  it.each(appendix)('RFC 7386 appendix A: %j patched with %j', (original, patch, result) => {
    expect(mergePatch(original, patch)).toEqual(result);
  });

  it('applies the RFC 7386 section 3 example', () => {
    const original: JsonObject = {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    };
    const patch: JsonObject = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
    expect(mergePatch(original, patch)).toEqual({
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
  });

  it('refuses a patch that is not an object, which would replace the whole resource', () => {
    for (const patch of [['c'], null, 'bar', 3]) {
      const error = refusal(() => mergePatch({ a: 'foo' }, patch));
      expect(error.kind).toBe('BadRequest');
    }
  });

  it('leaves its inputs untouched', () => {
    const original = Object.freeze({ a: Object.freeze({ b: 1 }) }) as JsonObject;
    const patch = Object.freeze({ a: Object.freeze({ c: Object.freeze([1]) }) });
    const result = mergePatch(original, patch);
    expect(result).toEqual({ a: { b: 1, c: [1] } });
    expect((result.a as JsonObject).c).not.toBe(patch.a.c);
  });

  it('keeps "__proto__" as data, shares nothing with the object, and refuses what JSON cannot carry', () => {
    const original = JSON.parse('{"__proto__":{"x":1},"keep":{"deep":[1]},"a":{"b":1}}') as JsonObject;
    const result = mergePatch(original, JSON.parse('{"a":{"__proto__":{"y":2}},"n":{"__proto__":null}}'));
    expect(JSON.stringify(result)).toBe('{"__proto__":{"x":1},"keep":{"deep":[1]},"a":{"b":1,"__proto__":{"y":2}},"n":{}}');
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(result.keep).not.toBe(original.keep);
    expect(refusal(() => mergePatch({}, { a: Number.NaN })).kind).toBe('BadRequest');
    expect(refusal(() => mergePatch({}, { a: () => 1 })).kind).toBe('BadRequest');
  });

  it('resets managedFields the way the specification describes', () => {
    const live: JsonObject = { metadata: { name: 'p', managedFields: [{ manager: 'kubectl' }] } };
    expect(mergePatch(live, { metadata: { managedFields: [{}] } })).toEqual({ metadata: { name: 'p', managedFields: [{}] } });
  });
});

describe('createMergePatch', () => {
  const cases: Array<[string, JsonObject, JsonObject, JsonObject]> = [
    ['no change', { a: 1, b: { c: [1] } }, { a: 1, b: { c: [1] } }, {}],
    ['changed scalar', { a: 1 }, { a: 2 }, { a: 2 }],
    ['removed field', { a: 1, b: 2 }, { a: 1 }, { b: null }],
    ['added nested field', { m: { x: 1 } }, { m: { x: 1, y: 2 } }, { m: { y: 2 } }],
    ['changed list', { l: [1, 2] }, { l: [2, 1] }, { l: [2, 1] }],
    ['object becomes scalar', { m: { x: 1 } }, { m: 'x' }, { m: 'x' }],
    ['scalar becomes object', { m: 'x' }, { m: { x: 1 } }, { m: { x: 1 } }],
    ['deep removal', { metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { a: '1' } } }, { metadata: { labels: { b: null } } }],
  ];

  it.each(cases)('%s', (_name, original, modified, expected) => {
    const patch = createMergePatch(original, modified);
    expect(patch).toEqual(expected);
    expect(mergePatch(original, patch)).toEqual(modified);
  });
});

import { canonicalJson, fnv32, fnv32a, safeEncodeString, semanticEqual } from './object-hash';

const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('object hashing', () => {
  it('has FNV-1a of 32 bits as Go’s fnv.New32a', () => {
    expect(fnv32a(bytes(''))).toBe(0x811c9dc5);
    expect(fnv32a(bytes('a'))).toBe(0xe40c292c);
    expect(fnv32a(bytes('foobar'))).toBe(0xbf9cf968);
    // Continuing a hash is hashing the concatenation.
    expect(fnv32a(bytes('bar'), fnv32a(bytes('foo')))).toBe(0xbf9cf968);
  });

  it('has FNV-1 of 32 bits as Go’s fnv.New32', () => {
    expect(fnv32(bytes(''))).toBe(0x811c9dc5);
    expect(fnv32(bytes('a'))).toBe(0x050c5d7e);
    expect(fnv32(bytes('foobar'))).toBe(0x31f0b262);
    expect(fnv32(bytes('bar'), fnv32(bytes('foo')))).toBe(0x31f0b262);
  });

  it('safe-encodes digits as Kubernetes does', () => {
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });

  it('writes one JSON text per value, whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
  });

  it('has absent, null and empty alike', () => {
    expect(semanticEqual({ a: [], b: null }, {})).toBe(true);
    expect(semanticEqual({ a: [1] }, { a: [] })).toBe(false);
  });
});

import { oneOf, string } from './string';

describe('string and oneOf', () => {
  it('takes any text verbatim, including the empty string', () => {
    expect(string.parse('/var/run/svc', undefined)).toBe('/var/run/svc');
    expect(string.parse('', undefined)).toBe('');
    expect(string.parse('a=b,c', undefined)).toBe('a=b,c');
  });

  it('restricts oneOf to its values', () => {
    const mode = oneOf(['batch', 'blocking', 'blocking-strict']);
    expect(mode.parse('blocking-strict', undefined)).toBe('blocking-strict');
    expect(() => mode.parse('Batch', undefined)).toThrow('must be one of: batch, blocking, blocking-strict');
  });

  it('gives a specific reason for refused values', () => {
    const backend = oneOf(['embedded', 'mongodb'], { store3: 'not shipped' });
    expect(() => backend.parse('store3', undefined)).toThrow('not shipped');
    expect(() => backend.parse('etcd', undefined)).toThrow('must be one of: embedded, mongodb');
  });
});

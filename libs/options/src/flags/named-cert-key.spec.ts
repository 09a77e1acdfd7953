import { namedCertKey } from './named-cert-key';

describe('namedCertKey', () => {
  it('reads a pair, optional names after a colon, and appends repeats', () => {
    const first = namedCertKey.parse('a.crt,a.key', undefined);
    expect(first).toEqual([{ certFile: 'a.crt', keyFile: 'a.key', names: [] }]);
    expect(namedCertKey.parse('b.crt,b.key:*.example.com,example.com', first)).toEqual([
      { certFile: 'a.crt', keyFile: 'a.key', names: [] },
      { certFile: 'b.crt', keyFile: 'b.key', names: ['*.example.com', 'example.com'] },
    ]);
  });

  it.each(['a.crt', 'a.crt,a.key,c', ',a.key', 'a.crt,:x'])('rejects %j', (text) => {
    expect(() => namedCertKey.parse(text, undefined)).toThrow('expected comma separated certificate and key file paths');
  });
});

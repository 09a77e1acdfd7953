import { isGlobalUnicast, splitSchemeNamePort } from '@svc/api';
import { proxiedPathOf, rewriteLocation } from './proxy';

const prefix = '/api/v1/namespaces/default/services/web:80/proxy';

describe('rewriteLocation (Kubernetes proxy Transport.rewriteURL)', () => {
  it.each([
    ['/landing?x=1', `${prefix}/landing?x=1`],
    ['/landing/', `${prefix}/landing/`],
    ['/', `${prefix}/`],
    ['http://10.0.0.5:8080/a/b#f', `${prefix}/a/b#f`],
    ['https://example.com/x', 'https://example.com/x'],
    ['relative/path', 'relative/path'],
    [`${prefix}/already`, `${prefix}/already`],
    ['http://apiserver:6443/z', 'http://apiserver:6443/api/v1/namespaces/default/services/web:80/proxy/z'],
  ])('%s becomes %s', (location, expected) => {
    expect(rewriteLocation(location, prefix, '10.0.0.5:8080', 'apiserver:6443')).toBe(expected);
  });
});

describe('proxiedPathOf', () => {
  it('splits the raw path after the proxy subresource, keeping its escapes and trailing slash', () => {
    expect(proxiedPathOf(`${prefix}`, 'services', 'web:80')).toEqual({ prefix, path: '' });
    expect(proxiedPathOf(`${prefix}/`, 'services', 'web:80')).toEqual({ prefix, path: '/' });
    expect(proxiedPathOf(`${prefix}/a%20b/c/`, 'services', 'web:80')).toEqual({ prefix, path: '/a%20b/c/' });
    // A namespace named like the resource does not confuse it.
    expect(proxiedPathOf('/api/v1/namespaces/services/services/web/proxy/x', 'services', 'web')).toEqual({
      prefix: '/api/v1/namespaces/services/services/web/proxy',
      path: '/x',
    });
  });

  it.each(['/..', '/a/../b', '/%2e%2E/x', '/./x', '/a%2Fb', '/a%5cb', '/a\\b', '/%zz', '/a%00b'])('refuses %s with 400', (rest) => {
    expect(() => proxiedPathOf(`${prefix}${rest}`, 'services', 'web:80')).toThrow(expect.objectContaining({ status: expect.objectContaining({ code: 400 }) }));
  });
});

describe('proxy ids and addresses', () => {
  it('splits ids as Kubernetes SplitSchemeNamePort does', () => {
    expect(splitSchemeNamePort('web')).toEqual({ scheme: '', name: 'web', port: '' });
    expect(splitSchemeNamePort('web:80')).toEqual({ scheme: '', name: 'web', port: '80' });
    expect(splitSchemeNamePort('https:web:443')).toEqual({ scheme: 'https', name: 'web', port: '443' });
    expect(splitSchemeNamePort('ftp:web:21')).toBeUndefined();
    expect(splitSchemeNamePort(':80')).toBeUndefined();
    expect(splitSchemeNamePort('a:b:c:d')).toBeUndefined();
  });

  it('proxies to global unicast addresses only (pods and nodes)', () => {
    expect(['10.244.1.5', '192.0.2.2', '2001:db8::1'].every(isGlobalUnicast)).toBe(true);
    expect(['127.0.0.1', '169.254.169.254', '0.0.0.0', '224.0.0.1', '::1', 'fe80::1', 'not-an-ip', ''].some(isGlobalUnicast)).toBe(false);
  });
});

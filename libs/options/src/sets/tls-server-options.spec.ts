import { tlsServerOptions } from './tls-server-options';

describe('tlsServerOptions', () => {
  it('leaves Node defaults alone when nothing is asked', () => {
    expect(tlsServerOptions({})).toEqual({});
    expect(tlsServerOptions({ tlsCipherSuites: [] })).toEqual({});
  });

  it.each([
    ['VersionTLS10', 'TLSv1'],
    ['VersionTLS11', 'TLSv1.1'],
    ['VersionTLS12', 'TLSv1.2'],
    ['VersionTLS13', 'TLSv1.3'],
  ] as const)('maps %s to %s', (flag, node) => {
    expect(tlsServerOptions({ tlsMinVersion: flag }).minVersion).toBe(node);
  });

  it('maps Go suite names to OpenSSL names in order, keeping TLS 1.3 suites on as Go does', () => {
    const options = tlsServerOptions({
      tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
    });
    expect(options.ciphers).toBe(
      'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256',
    );
    expect(options.honorCipherOrder).toBe(true);
  });

  it('keeps an explicit TLS 1.3 choice as given', () => {
    expect(tlsServerOptions({ tlsCipherSuites: ['TLS_AES_256_GCM_SHA384', 'TLS_RSA_WITH_AES_128_GCM_SHA256'] }).ciphers).toBe(
      'TLS_AES_256_GCM_SHA384:AES128-GCM-SHA256',
    );
  });

  it('refuses a name it cannot map: the flag and file readers check names first', () => {
    expect(() => tlsServerOptions({ tlsCipherSuites: ['TLS_BOGUS'] })).toThrow('unknown TLS cipher suite TLS_BOGUS');
  });
});

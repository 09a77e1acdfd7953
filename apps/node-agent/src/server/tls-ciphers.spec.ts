import { opensslCiphers } from './tls-ciphers';

describe('opensslCiphers', () => {
  it('leaves the defaults when no suite is named', () => {
    expect(opensslCiphers(undefined)).toBeUndefined();
    expect(opensslCiphers([])).toBeUndefined();
  });

  it("maps Go's names to OpenSSL's and keeps the TLS 1.3 suites on", () => {
    expect(opensslCiphers(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305'])).toBe(
      'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256',
    );
  });

  it('refuses a name it cannot map', () => {
    expect(() => opensslCiphers(['ECDHE-RSA-AES128-GCM-SHA256'])).toThrow(/unknown TLS cipher suite ECDHE-RSA-AES128-GCM-SHA256/);
  });
});

import type { TlsVersionName } from '../config';

/** Go's names for the TLS suites it can offer, in OpenSSL's spelling (what Node's `ciphers` option takes). */
const OPENSSL_CIPHER_BY_GO_NAME: Record<string, string> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
};

// Go always offers its TLS 1.3 suites whatever the list says; keep that, or a 1.2-only list would silently disable TLS 1.3.
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

const NODE_TLS_VERSION: Record<TlsVersionName, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export interface TlsServerOptions {
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  ciphers?: string;
  honorCipherOrder?: boolean;
}

/** The Node TLS options for `--tls-min-version` and `--tls-cipher-suites`; unknown suites are reported through warn and skipped. */
export function tlsServerOptions(
  settings: { tlsMinVersion?: TlsVersionName; tlsCipherSuites?: readonly string[] },
  warn: (message: string) => void = () => undefined,
): TlsServerOptions {
  const options: TlsServerOptions = {};
  if (settings.tlsMinVersion) {
    const version = NODE_TLS_VERSION[settings.tlsMinVersion];
    if (!version) throw new Error(`unknown --tls-min-version ${settings.tlsMinVersion}`);
    options.minVersion = version;
  }
  const requested = (settings.tlsCipherSuites ?? []).map((s) => s.trim()).filter((s) => s !== '');
  if (requested.length > 0) {
    const mapped: string[] = [];
    for (const name of requested) {
      const openssl = OPENSSL_CIPHER_BY_GO_NAME[name];
      if (openssl === undefined) warn(`ignoring unknown TLS cipher suite ${name}`);
      else if (!mapped.includes(openssl)) mapped.push(openssl);
    }
    if (mapped.length === 0) {
      warn('none of --tls-cipher-suites is known; using the default suites');
    } else {
      if (!mapped.some((m) => TLS13_SUITES.includes(m))) mapped.push(...TLS13_SUITES);
      options.ciphers = mapped.join(':');
      options.honorCipherOrder = true;
    }
  }
  return options;
}

/** Go names this server can map, for help texts and validation. */
export function knownCipherSuiteNames(): string[] {
  return Object.keys(OPENSSL_CIPHER_BY_GO_NAME);
}

import { TLS_CIPHER_SUITES, TLS_VERSIONS } from '@svc/options';
import type { TlsVersionName } from '../config';

// Go always offers its TLS 1.3 suites whatever the list says; keep that, or a 1.2-only list would silently disable TLS 1.3.
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

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
    const version = TLS_VERSIONS[settings.tlsMinVersion];
    if (!version) throw new Error(`unknown --tls-min-version ${settings.tlsMinVersion}`);
    options.minVersion = version;
  }
  const requested = (settings.tlsCipherSuites ?? []).map((s) => s.trim()).filter((s) => s !== '');
  if (requested.length > 0) {
    const mapped: string[] = [];
    for (const name of requested) {
      const openssl = TLS_CIPHER_SUITES[name];
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
  return Object.keys(TLS_CIPHER_SUITES);
}

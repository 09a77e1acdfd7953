import { TLS_CIPHER_SUITES, TLS_VERSIONS, type TlsVersionName } from './tls-cipher-suites';

// Go always offers its TLS 1.3 suites whatever the list says; keep that, or a 1.2-only list would silently disable TLS 1.3.
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** The part of Node's TLS server options that `--tls-min-version` and `--tls-cipher-suites` set. */
export interface TlsServerOptions {
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  ciphers?: string;
  honorCipherOrder?: boolean;
}

/**
 * Node's TLS options for a minimum version and a list of Go (IANA) cipher suite names, as every
 * secure port here takes them (API server, controller manager, scheduler, node agent). Names are
 * checked where they are read (flag or configuration file); one that reaches here unknown is an error.
 */
export function tlsServerOptions(settings: { tlsMinVersion?: TlsVersionName | ''; tlsCipherSuites?: readonly string[] }): TlsServerOptions {
  const options: TlsServerOptions = {};
  if (settings.tlsMinVersion) {
    const version = TLS_VERSIONS[settings.tlsMinVersion];
    if (!version) throw new Error(`unknown TLS version ${settings.tlsMinVersion}`);
    options.minVersion = version;
  }
  const requested = (settings.tlsCipherSuites ?? []).map((s) => s.trim()).filter((s) => s !== '');
  if (requested.length > 0) {
    const mapped: string[] = [];
    for (const name of requested) {
      const openssl = TLS_CIPHER_SUITES[name];
      if (openssl === undefined) throw new Error(`unknown TLS cipher suite ${name}`);
      if (!mapped.includes(openssl)) mapped.push(openssl);
    }
    if (!mapped.some((m) => TLS13_SUITES.includes(m))) mapped.push(...TLS13_SUITES);
    options.ciphers = mapped.join(':');
    options.honorCipherOrder = true;
  }
  return options;
}

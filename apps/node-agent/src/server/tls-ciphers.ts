import { TLS_CIPHER_SUITES } from '@svc/options';

/** Go enables its TLS 1.3 suites whatever `tlsCipherSuites` says; a list of 1.2 suites alone must not turn TLS 1.3 off. */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/**
 * The OpenSSL cipher string for `tlsCipherSuites` (Go's names, as the configuration takes them), or
 * undefined for the defaults. Unknown names are refused by the configuration's validation; one
 * arriving here anyway is an error, never passed on for OpenSSL to misread.
 */
export function opensslCiphers(goNames: readonly string[] | undefined): string | undefined {
  if (!goNames?.length) return undefined;
  const mapped: string[] = [];
  for (const name of goNames) {
    const openssl = TLS_CIPHER_SUITES[name];
    if (openssl === undefined) throw new Error(`tlsCipherSuites: unknown TLS cipher suite ${name}`);
    if (!mapped.includes(openssl)) mapped.push(openssl);
  }
  for (const suite of TLS13_SUITES) if (!mapped.includes(suite)) mapped.push(suite);
  return mapped.join(':');
}

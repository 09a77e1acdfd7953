import type { FlagType } from './flag-type';

/** One `--tls-sni-cert-key` value: a certificate and key pair, served for `names` (patterns) or the names in the certificate when empty. */
export interface NamedCertKey {
  certFile: string;
  keyFile: string;
  names: string[];
}

/** `namedCertKey`: `cert.crt,cert.key` or `cert.crt,cert.key:*.example.com,example.com`; repeatable. */
export const namedCertKey: FlagType<NamedCertKey[]> = {
  name: 'namedCertKey',
  requiresValue: true,
  parse: (raw, previous) => {
    const colon = raw.indexOf(':');
    const files = (colon === -1 ? raw : raw.slice(0, colon)).split(',').map((s) => s.trim());
    const names =
      colon === -1
        ? []
        : raw
            .slice(colon + 1)
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '');
    if (files.length !== 2 || files[0] === '' || files[1] === '') {
      throw new Error('expected comma separated certificate and key file paths');
    }
    return [...(previous ?? []), { certFile: files[0], keyFile: files[1], names }];
  },
  format: (value) => `[${value.map((v) => `${v.certFile},${v.keyFile}${v.names.length > 0 ? `:${v.names.join(',')}` : ''}`).join(';')}]`,
};

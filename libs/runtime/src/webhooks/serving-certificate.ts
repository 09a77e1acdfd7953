import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Secret } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';
import { isAlreadyExists, isConflict, isNotFound } from '@svc/machinery';
import { generate } from 'selfsigned';

/** The PEMs a webhook server serves with, and the bundle the API server trusts them by. */
export interface ServingCertificate {
  cert: string;
  key: string;
  ca: string;
}

/**
 * How the serving certificate is kept fresh. Files are read again every `checkIntervalMs`
 * (controller-runtime's certwatcher polls every 10 s); a certificate in a Secret is read as often,
 * and renewed by the replica that first finds it within `renewBeforeMs` of its end.
 */
export interface CertificateRotation {
  /** Default 10 s. */
  checkIntervalMs: number;
  /** How long a serving certificate made for the Secret is valid. Default 1 year. */
  validityMs: number;
  /** How long before its end it is renewed. Default 90 days (open-policy-agent's cert-controller lookahead). */
  renewBeforeMs: number;
}

const DAY_MS = 24 * 3600 * 1000;
export const DEFAULT_CERTIFICATE_ROTATION: CertificateRotation = { checkIntervalMs: 10_000, validityMs: 365 * DAY_MS, renewBeforeMs: 90 * DAY_MS };
/** The authority in the Secret signs the serving certificates; its own term outlasts many renewals. */
const AUTHORITY_VALIDITY_MS = 10 * 365 * DAY_MS;

const isIp = (name: string) => /^[\d.]+$/.test(name) || name.includes(':');
const altNames = (names: readonly string[]) => names.map((n) => (isIp(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n }));

/** A self-signed certificate for these names is its own trust anchor, so its caBundle is itself (development mode). */
export async function selfSignedCertificate(names: readonly string[]): Promise<ServingCertificate> {
  const pems = await generate([{ name: 'commonName', value: names[0] }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 365 * DAY_MS),
    extensions: [{ name: 'subjectAltName', altNames: altNames(names) }],
  });
  return { cert: pems.cert, key: pems.private, ca: pems.cert };
}

interface Authority {
  cert: string;
  key: string;
}

async function newAuthority(commonName: string): Promise<Authority> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + AUTHORITY_VALIDITY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function issue(authority: Authority, names: readonly string[], validityMs: number): Promise<ServingCertificate> {
  const pems = await generate([{ name: 'commonName', value: names[0] }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + validityMs),
    ca: { key: authority.key, cert: authority.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: altNames(names) },
    ],
  });
  return { cert: pems.cert, key: pems.private, ca: authority.cert };
}

/** When a PEM certificate ends (ms since the epoch). */
export function certificateEnd(pem: string): number {
  return Date.parse(new X509Certificate(pem).validTo);
}

/** The mounted files (cert-manager's `tls.crt`, `tls.key`, `ca.crt`), read now; the certificate is its own anchor without a CA file. */
export function fileCertificate(files: { certFile: string; keyFile: string; caFile?: string }): ServingCertificate {
  const cert = readFileSync(files.certFile, 'utf8');
  const key = readFileSync(files.keyFile, 'utf8');
  return { cert, key, ca: files.caFile ? readFileSync(files.caFile, 'utf8') : cert };
}

const encode = (text: string) => Buffer.from(text).toString('base64');
const decode = (value: string | undefined) => (value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8'));

/**
 * The certificate every replica behind a Service serves, kept in a Secret (type `kubernetes.io/tls`)
 * as open-policy-agent's cert-controller keeps it: an authority (`ca.crt`, `ca.key`, valid ten
 * years, the configurations' caBundle) and a serving certificate it signed (`tls.crt`, `tls.key`).
 * The first replica to find no Secret makes it; a replica that finds the serving certificate within
 * `renewBeforeMs` of its end signs a new one with the same authority, so the caBundle stays and no
 * review fails while the replicas move over. Writes carry the read resourceVersion: of two replicas
 * renewing at once one wins and the other reads its certificate.
 */
export async function secretCertificate(
  client: Client,
  secret: { namespace: string; name: string },
  names: readonly string[],
  rotation: CertificateRotation,
): Promise<ServingCertificate> {
  const secrets = client.resource(BUILTIN_RESOURCES.secrets).inNamespace(secret.namespace);
  for (let attempt = 0; ; attempt++) {
    let found: Secret | undefined;
    try {
      found = await secrets.get(secret.name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const data = found?.data ?? {};
    const current = { cert: decode(data['tls.crt']), key: decode(data['tls.key']), ca: decode(data['ca.crt'] ?? data['tls.crt']) };
    const authority = data['ca.crt'] && data['ca.key'] ? { cert: decode(data['ca.crt']), key: decode(data['ca.key']) } : undefined;
    const fresh = current.cert && current.key && certificateEnd(current.cert) - Date.now() > rotation.renewBeforeMs;
    if (found && fresh) return current;
    // Without an authority of its own (a Secret written by hand), a serving pair is only read.
    if (found && current.cert && current.key && !authority) return current;
    const signer = authority ?? (await newAuthority(`${names[0]}-ca`));
    const made = await issue(signer, names, rotation.validityMs);
    const written: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...(found?.metadata ?? {}), name: secret.name, namespace: secret.namespace },
      type: 'kubernetes.io/tls',
      data: { ...data, 'tls.crt': encode(made.cert), 'tls.key': encode(made.key), 'ca.crt': encode(signer.cert), 'ca.key': encode(signer.key) },
    };
    try {
      await (found ? secrets.update(written) : secrets.create(written));
      return made;
    } catch (error) {
      // Another replica wrote first: read what it wrote.
      if ((isAlreadyExists(error) || isConflict(error)) && attempt < 3) continue;
      throw error;
    }
  }
}

import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { parse as parseYaml, stringify } from 'yaml';
import { writeFileAtomically } from '../serving/atomic-write';
import { clientConnectionConfig } from '../serving/client-connection-file';

/** The CA this server issues its own clients' certificates with (the connection files'), in the cert directory. */
export const CLIENT_CA_CERT_FILE = 'client-ca.crt';
export const CLIENT_CA_KEY_FILE = 'client-ca.key';

const DAY_MS = 24 * 60 * 60 * 1000;
const CA_VALIDITY_MS = 10 * 365 * DAY_MS;
const CLIENT_VALIDITY_MS = 365 * DAY_MS;
const BACKDATE_MS = 60 * 60 * 1000;

export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
  certFile: string;
}

export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
}

/** The client CA in `certDir`, made on first use and kept while it is valid for 30 more days. */
export async function ensureClientCa(certDir: string, now: number = Date.now()): Promise<CertificateAuthority> {
  const certFile = join(certDir, CLIENT_CA_CERT_FILE);
  const keyFile = join(certDir, CLIENT_CA_KEY_FILE);
  try {
    const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    const cert = new X509Certificate(certPem);
    if (cert.ca && cert.checkPrivateKey(createPrivateKey(keyPem)) && Date.parse(cert.validTo) - now > 30 * DAY_MS) return { certPem, keyPem, certFile };
  } catch {
    // missing or unreadable: made anew below
  }
  // A name of its own: TLS finds a client certificate's issuer by name among every CA the server
  // trusts (its own and --client-ca-file's), and two CAs made in the same second would share one.
  const name = `svc-client-ca@${Math.floor(now / 1000)}-${randomBytes(4).toString('hex')}`;
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - BACKDATE_MS),
    notAfterDate: new Date(now + CA_VALIDITY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  await writeFileAtomically(keyFile, pems.private, 0o600);
  await writeFileAtomically(certFile, pems.cert, 0o644);
  return { certPem: pems.cert, keyPem: pems.private, certFile };
}

/** A client certificate for `commonName` (the user) in `organizations` (the groups), issued by `ca`. */
export async function issueClientCertificate(
  ca: Pick<CertificateAuthority, 'certPem' | 'keyPem'>,
  commonName: string,
  organizations: readonly string[] = [],
  now: number = Date.now(),
): Promise<IssuedCertificate> {
  const pems = await generate([{ name: 'commonName', value: commonName }, ...organizations.map((value) => ({ name: 'organizationName', value }))], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - BACKDATE_MS),
    notAfterDate: new Date(now + CLIENT_VALIDITY_MS),
    ca: { cert: ca.certPem, key: ca.keyPem },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return { certPem: pems.cert, keyPem: pems.private };
}

/**
 * A connection file for one more identity of a cluster (a controller manager, a scheduler, a node
 * agent), beside the administrator's the server wrote: the same server and CA, with a client
 * certificate for `user` in `groups` issued by the client CA in `certDir`.
 */
export async function writeIdentityConnectionFile(options: {
  /** The connection file the server wrote (its server address and CA are reused). */
  connectionFile: string;
  certDir: string;
  path: string;
  user: string;
  groups?: readonly string[];
}): Promise<void> {
  const written = parseYaml(await readFile(options.connectionFile, 'utf8')) as {
    clusters?: Array<{ cluster?: { server?: string; 'certificate-authority-data'?: string } }>;
  };
  const cluster = written.clusters?.[0]?.cluster;
  if (!cluster?.server) throw new Error(`${options.connectionFile} names no server`);
  const caPem = cluster['certificate-authority-data'] ? Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') : undefined;
  const issued = await issueClientCertificate(await ensureClientCa(options.certDir), options.user, options.groups ?? []);
  await writeFileAtomically(options.path, stringify(clientConnectionConfig(cluster.server, caPem, issued)), 0o600);
}

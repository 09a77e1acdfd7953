import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { writeFileAtomically } from './atomic-write';

/** The certificate the server presents and what a client should trust to verify it. */
export interface ServingCertificates {
  /** PEM chain presented to clients (leaf first). */
  certPem: string;
  keyPem: string;
  certFile: string;
  keyFile: string;
  /** PEM of the root that signs the serving certificate; undefined when a given certificate chains to a CA not in hand. */
  caPem?: string;
  /** Where caPem lives on disk (generated CA), when it does. */
  caFile?: string;
  /** True when this start generated the serving certificate (or the CA). */
  generated: boolean;
}

export interface CertificateRequest {
  certDir: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  bindAddress: string;
  advertiseAddress?: string;
  /** The `kubernetes` Service's ClusterIP, through which pods reach the server. */
  kubernetesServiceIP?: string;
  /** Milliseconds clock, replaceable in tests. */
  now?: () => number;
}

export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
export const SERVING_CERT_FILE = 'apiserver.crt';
export const SERVING_KEY_FILE = 'apiserver.key';

const DAY_MS = 24 * 60 * 60 * 1000;
const VALIDITY_MS = 365 * DAY_MS;
// Regenerate well before expiry so a running server is never left with a certificate about to lapse.
const RENEW_BEFORE_MS = 30 * DAY_MS;
// Backdated so that clients whose clocks lag a little still accept a freshly made certificate.
const BACKDATE_MS = 60 * 60 * 1000;

/**
 * The given cert/key pair, or a self-signed CA and a serving pair it signs in the cert directory,
 * reused across restarts while readable, matching, covering the server's names and not expiring within 30 days.
 */
export async function ensureServingCertificates(request: CertificateRequest): Promise<ServingCertificates> {
  if (request.tlsCertFile || request.tlsPrivateKeyFile) return loadGivenCertificates(request);
  return ensureGeneratedCertificates(request);
}

async function loadGivenCertificates(request: CertificateRequest): Promise<ServingCertificates> {
  const { tlsCertFile: certFile, tlsPrivateKeyFile: keyFile } = request;
  if (!certFile || !keyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  const chain = parseChain(certPem);
  if (chain.length === 0) throw new Error(`--tls-cert-file ${certFile} holds no PEM certificate`);
  if (!chain[0].checkPrivateKey(createPrivateKey(keyPem))) {
    throw new Error(`--tls-private-key-file ${keyFile} does not match the certificate in ${certFile}`);
  }
  const root = chain[chain.length - 1];
  const caPem = isSelfSigned(root) ? root.toString() : undefined;
  return { certPem, keyPem, certFile, keyFile, caPem, generated: false };
}

async function ensureGeneratedCertificates(request: CertificateRequest): Promise<ServingCertificates> {
  const now = request.now ?? Date.now;
  const paths = {
    caCert: join(request.certDir, CA_CERT_FILE),
    caKey: join(request.certDir, CA_KEY_FILE),
    cert: join(request.certDir, SERVING_CERT_FILE),
    key: join(request.certDir, SERVING_KEY_FILE),
  };
  const names = servingNames(request);

  let generated = false;
  let ca = await loadPair(paths.caCert, paths.caKey);
  if (!ca || !ca.cert.ca || !stillValid(ca.cert, now())) {
    const made = await generateCa(now());
    await writeFileAtomically(paths.caKey, made.keyPem, 0o600);
    await writeFileAtomically(paths.caCert, made.certPem, 0o644);
    ca = { ...made, cert: new X509Certificate(made.certPem) };
    generated = true;
  }

  let serving = generated ? undefined : await loadPair(paths.cert, paths.key);
  const reusable =
    serving !== undefined &&
    serving.cert.verify(ca.cert.publicKey) &&
    stillValid(serving.cert, now()) &&
    names.dns.every((n) => serving!.cert.checkHost(n, { wildcards: false }) !== undefined) &&
    names.ips.every((ip) => serving!.cert.checkIP(ip) !== undefined);
  if (!reusable) {
    const made = await generateServing(now(), names, ca);
    const chainPem = `${made.certPem.trim()}\n${ca.certPem.trim()}\n`;
    await writeFileAtomically(paths.key, made.keyPem, 0o600);
    await writeFileAtomically(paths.cert, chainPem, 0o644);
    serving = { certPem: chainPem, keyPem: made.keyPem, cert: new X509Certificate(made.certPem) };
    generated = true;
  }

  return {
    certPem: serving!.certPem,
    keyPem: serving!.keyPem,
    certFile: paths.cert,
    keyFile: paths.key,
    caPem: ca.certPem,
    caFile: paths.caCert,
    generated,
  };
}

/**
 * The names pods reach the server by through the `kubernetes` Service (Kubernetes' self-signed
 * certificate names the first three; kubeadm adds the one under the cluster domain).
 */
export const KUBERNETES_SERVICE_DNS_NAMES = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'] as const;

/** The names the serving certificate must cover. */
export function servingNames(request: Pick<CertificateRequest, 'bindAddress' | 'advertiseAddress' | 'kubernetesServiceIP'>): { dns: string[]; ips: string[] } {
  const dns = new Set<string>(['localhost', ...KUBERNETES_SERVICE_DNS_NAMES]);
  const ips = new Set(['127.0.0.1', '::1']);
  const host = hostname().toLowerCase();
  if (isDnsName(host)) dns.add(host);
  for (const address of [request.bindAddress, request.advertiseAddress, request.kubernetesServiceIP]) {
    if (!address || isUnspecifiedAddress(address)) continue;
    if (isIP(address)) ips.add(normalizeIp(address));
    else if (isDnsName(address)) dns.add(address.toLowerCase());
  }
  return { dns: [...dns], ips: [...ips] };
}

export function isUnspecifiedAddress(address: string): boolean {
  return address === '' || address === '0.0.0.0' || address === '::' || address === '[::]' || address === '::0';
}

function normalizeIp(ip: string): string {
  return ip.replace(/^\[|\]$/g, '');
}

function isDnsName(name: string): boolean {
  return name.length <= 253 && /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(name);
}

interface LoadedPair {
  certPem: string;
  keyPem: string;
  cert: X509Certificate;
}

/** A cert and key from disk when both are readable, parse and belong together. */
async function loadPair(certFile: string, keyFile: string): Promise<LoadedPair | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return undefined;
    return { certPem, keyPem, cert };
  } catch {
    return undefined;
  }
}

function stillValid(cert: X509Certificate, nowMs: number): boolean {
  const notBefore = Date.parse(cert.validFrom);
  const notAfter = Date.parse(cert.validTo);
  return notBefore <= nowMs && notAfter - nowMs > RENEW_BEFORE_MS;
}

async function generateCa(nowMs: number): Promise<{ certPem: string; keyPem: string }> {
  const pems = await generate([{ name: 'commonName', value: `svc-apiserver-ca@${Math.floor(nowMs / 1000)}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(nowMs - BACKDATE_MS),
    notAfterDate: new Date(nowMs + VALIDITY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { certPem: pems.cert, keyPem: pems.private };
}

async function generateServing(
  nowMs: number,
  names: { dns: string[]; ips: string[] },
  ca: { certPem: string; keyPem: string },
): Promise<{ certPem: string; keyPem: string }> {
  const pems = await generate([{ name: 'commonName', value: `svc-apiserver@${Math.floor(nowMs / 1000)}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(nowMs - BACKDATE_MS),
    notAfterDate: new Date(nowMs + VALIDITY_MS),
    ca: { cert: ca.certPem, key: ca.keyPem },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...names.dns.map((value) => ({ type: 2 as const, value })), ...names.ips.map((ip) => ({ type: 7 as const, ip }))],
      },
    ],
  });
  return { certPem: pems.cert, keyPem: pems.private };
}

function parseChain(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

function isSelfSigned(cert: X509Certificate): boolean {
  // A self-signed leaf counts too: clients (Go's verifier among them) trust a certificate found in their root pool as is.
  return cert.subject === cert.issuer && cert.verify(cert.publicKey);
}

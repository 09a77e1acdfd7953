import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { Pkcs10CertificateRequest, SubjectAlternativeNameExtension } from '@peculiar/x509';

/** What the signers and approvers read of a PKCS#10 request (Go's x509.CertificateRequest). */
export interface CertificateRequestInfo {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** The requested public key, as a SubjectPublicKeyInfo (DER). */
  publicKeyDer: Buffer;
  /** RSA, ECDSA or Ed25519 (Go's PublicKeyAlgorithm names), or what the key's type says. */
  publicKeyAlgorithm: string;
}

/** One PEM block: its type and DER bytes (Go's pem.Block, headers ignored). */
export interface PemBlock {
  type: string;
  der: Buffer;
}

/** Larger PEM inputs are not looked at: every certificate a signer issues fits far below it. */
const MAX_PEM_BYTES = 256 * 1024;
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** The PEM blocks of `data` in order; text around them is skipped, as Go's pem.Decode skips it. */
export function pemBlocks(data: Buffer | string): PemBlock[] {
  const text = typeof data === 'string' ? data : data.toString('latin1');
  if (text.length > MAX_PEM_BYTES) return [];
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(PEM_BLOCK)) {
    // Headers (`Key: value` lines before a blank line) are not part of the base64 body.
    const body = match[2].includes(':')
      ? match[2]
          .split(/\r?\n\r?\n/)
          .slice(1)
          .join('\n')
      : match[2];
    if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) continue;
    blocks.push({ type: match[1], der: Buffer.from(body.replace(/\s+/g, ''), 'base64') });
  }
  return blocks;
}

/** Whether the first PEM block of `data` carries headers (`Proc-Type: ...`), which certificates may not. */
export function pemHasHeaders(data: Buffer | string): boolean {
  const text = typeof data === 'string' ? data : data.toString('latin1');
  const match = new RegExp(PEM_BLOCK.source).exec(text.slice(0, MAX_PEM_BYTES));
  return match !== null && match[2].split(/\r?\n/)[0].includes(':');
}

/** The bytes of the first element inside the DER SEQUENCE `der` (the signed part of a request or certificate). */
function firstElement(der: Buffer): Buffer {
  const header = (at: number): { start: number; end: number } => {
    if (at + 2 > der.length) throw new Error('truncated');
    let length = der[at + 1];
    let start = at + 2;
    if (length & 0x80) {
      const octets = length & 0x7f;
      if (octets === 0 || octets > 4 || start + octets > der.length) throw new Error('bad length');
      length = 0;
      for (let i = 0; i < octets; i++) length = length * 256 + der[start + i];
      start += octets;
    }
    if (start + length > der.length) throw new Error('truncated');
    return { start, end: start + length };
  };
  const outer = header(0);
  const inner = header(outer.start);
  return der.subarray(outer.start, inner.end);
}

const KEY_ALGORITHMS: Record<string, string> = { rsa: 'RSA', ec: 'ECDSA', ed25519: 'Ed25519' };
const HASHES: Record<string, string> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

/**
 * Parses a PEM `CERTIFICATE REQUEST` and checks its self-signature, as Kubernetes' validation does
 * (certificates.ParseCSR, then CheckSignature). Throws an Error whose message is Go's.
 */
export function parseCertificateRequest(pem: Buffer | string): CertificateRequestInfo {
  const block = pemBlocks(pem)[0];
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let csr: Pkcs10CertificateRequest;
  let signed: Buffer;
  try {
    csr = new Pkcs10CertificateRequest(block.der);
    signed = firstElement(block.der);
  } catch {
    throw new Error('x509: malformed certificate request');
  }
  const key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
  const algorithm = KEY_ALGORITHMS[key.asymmetricKeyType ?? ''] ?? key.asymmetricKeyType ?? 'unknown';
  const signatureAlgorithm = csr.signatureAlgorithm as { name?: string; hash?: { name?: string } };
  const hash = algorithm === 'Ed25519' ? null : HASHES[signatureAlgorithm.hash?.name ?? ''];
  let valid = false;
  try {
    valid = hash !== undefined && verify(hash, signed, key, Buffer.from(csr.signature));
  } catch {
    valid = false;
  }
  if (!valid) throw new Error(algorithm === 'RSA' ? 'crypto/rsa: verification error' : `x509: ${algorithm} verification failure`);
  const names = csr.extensions.find((e): e is SubjectAlternativeNameExtension => e instanceof SubjectAlternativeNameExtension);
  const general = names ? names.names.toJSON() : [];
  const of = (type: string) => general.filter((n) => n.type === type).map((n) => n.value);
  return {
    commonName: csr.subjectName.getField('CN')[0] ?? '',
    organizations: csr.subjectName.getField('O'),
    dnsNames: of('dns'),
    ipAddresses: of('ip'),
    emailAddresses: of('email'),
    uris: of('url'),
    publicKeyDer: Buffer.from(csr.publicKey.rawData),
    publicKeyAlgorithm: algorithm,
  };
}

/**
 * Why `pem` is not a chain of certificates (Kubernetes' validateCertificate of status.certificate),
 * or undefined when it is (empty is allowed: no certificate yet).
 */
export function certificateChainProblem(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    try {
      new X509Certificate(block.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return pemHasHeaders(pem) ? 'no PEM block headers are permitted' : undefined;
}

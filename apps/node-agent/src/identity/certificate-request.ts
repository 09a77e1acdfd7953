import { webcrypto, X509Certificate } from 'node:crypto';
import { Pkcs10CertificateRequestGenerator, SubjectAlternativeNameExtension, type JsonGeneralName } from '@peculiar/x509';
import { CSR_APPROVED, CSR_DENIED, CSR_FAILED, type CertificateSigningRequest } from '@svc/api';
import type { Client } from '@svc/client';
import { errorMessage } from '@svc/machinery';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
/** The usages a node asks for with an ECDSA key (no key encipherment: that is for RSA keys). */
export const NODE_CLIENT_USAGES = ['digital signature', 'client auth'];
export const NODE_SERVING_USAGES = ['digital signature', 'server auth'];

export interface KeyAndRequest {
  keyPem: string;
  requestPem: string;
}

function pem(type: string, der: ArrayBuffer): string {
  const body = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${type}-----\n${body.endsWith('\n') ? body : `${body}\n`}-----END ${type}-----\n`;
}

/** A new ECDSA P-256 key and a PKCS#10 request for it: CN and O as given, DNS and IP alternative names when given. */
export async function newKeyAndRequest(subject: {
  commonName: string;
  organizations: readonly string[];
  dnsNames?: readonly string[];
  ips?: readonly string[];
}): Promise<KeyAndRequest> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const names: JsonGeneralName[] = [
    ...(subject.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(subject.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  const escape = (value: string) => value.replace(/([,+"\\<>;=])/g, '\\$1');
  const request = await Pkcs10CertificateRequestGenerator.create({
    name: [...subject.organizations.map((o) => `O=${escape(o)}`), `CN=${escape(subject.commonName)}`].join(', '),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: names.length > 0 ? [new SubjectAlternativeNameExtension(names)] : [],
  });
  const keyDer = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { keyPem: pem('PRIVATE KEY', keyDer), requestPem: request.toString('pem') + '\n' };
}

/** The part of a certificate's life that has passed, and when it ends. */
export function certificateLife(certPem: string): { notBefore: number; notAfter: number } {
  const cert = new X509Certificate(certPem);
  return { notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo) };
}

/**
 * When to renew a certificate, as client-go's certificate manager decides (nextRotationDeadline): at
 * a random point between 70 and 90 % of its life, so that a fleet of nodes does not renew at once.
 */
export function rotationDeadline(certPem: string, random: () => number = Math.random): number {
  const { notBefore, notAfter } = certificateLife(certPem);
  const total = notAfter - notBefore;
  return notBefore + total * (0.7 + 0.2 * random());
}

export class CertificateRequestRefused extends Error {
  override readonly name = 'CertificateRequestRefused';
}

/**
 * Creates a CertificateSigningRequest for `requestPem` and waits until its signer writes the
 * certificate: refused when it is denied or fails, abandoned after `timeoutMs`. Returns the PEM.
 */
export async function requestCertificate(
  client: Client,
  request: { requestPem: string; signerName: string; usages: readonly string[]; expirationSeconds?: number },
  options: { timeoutMs: number; pollMs?: number; log?: (message: string) => void; signal?: AbortSignal },
): Promise<{ certPem: string; name: string }> {
  const deadline = Date.now() + options.timeoutMs;
  const pollMs = options.pollMs ?? 1_000;
  const body = {
    metadata: { generateName: 'csr-' },
    spec: {
      request: Buffer.from(request.requestPem).toString('base64'),
      signerName: request.signerName,
      usages: [...request.usages],
      ...(request.expirationSeconds !== undefined ? { expirationSeconds: request.expirationSeconds } : {}),
    },
  } as CertificateSigningRequest;
  // The API server may not be up yet, nor the token or its roles in place: the kubelet tries again too.
  let created: CertificateSigningRequest | undefined;
  for (let delay = pollMs; created === undefined; delay = Math.min(delay * 2, 30_000)) {
    try {
      created = await client.certificateSigningRequests.create(body);
    } catch (error) {
      if (Date.now() + delay > deadline || options.signal?.aborted) throw error;
      options.log?.(`creating a certificate signing request for ${request.signerName}: ${errorMessage(error)}; trying again in ${Math.round(delay / 1000)}s`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  const name = created.metadata?.name ?? '';
  options.log?.(`certificate signing request ${name} created for ${request.signerName}; waiting for it to be approved and issued`);
  for (;;) {
    if (options.signal?.aborted) throw new Error(`waiting for certificate signing request ${name} stopped`);
    let current: CertificateSigningRequest | undefined;
    try {
      current = await client.certificateSigningRequests.get(name);
    } catch (error) {
      options.log?.(`reading certificate signing request ${name}: ${errorMessage(error)}`);
    }
    const conditions = current?.status?.conditions ?? [];
    const denied = conditions.find((c) => c.type === CSR_DENIED);
    if (denied)
      throw new CertificateRequestRefused(`certificate signing request ${name} is denied, reason: ${denied.reason ?? ''}, message: ${denied.message ?? ''}`);
    const failed = conditions.find((c) => c.type === CSR_FAILED);
    if (failed)
      throw new CertificateRequestRefused(`certificate signing request ${name} failed, reason: ${failed.reason ?? ''}, message: ${failed.message ?? ''}`);
    if (current?.status?.certificate && conditions.some((c) => c.type === CSR_APPROVED)) {
      return { certPem: Buffer.from(current.status.certificate, 'base64').toString('utf8'), name };
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for certificate signing request ${name} to be approved and issued`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Authenticator, AuthenticationOutcome } from './authenticator';

const CLIENT_AUTH_USAGE = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE = '2.5.29.37.0';

/** Splits a PEM bundle into its certificates. */
export function parseCertificateBundle(pem: string, source: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${source} holds no PEM certificate`);
  return blocks.map((block) => new X509Certificate(block));
}

/**
 * `--client-ca-file`: a client certificate issued by one of the CAs, valid now and meant for client
 * authentication, authenticates as its CommonName with its Organizations as groups. The outcome is
 * kept per TLS connection: the certificate cannot change on it.
 */
export class X509Authenticator implements Authenticator {
  readonly name = 'x509';
  private readonly outcomes = new WeakMap<TLSSocket, AuthenticationOutcome>();

  constructor(
    private readonly authorities: readonly X509Certificate[],
    private readonly now: () => number = Date.now,
  ) {}

  authenticate(req: IncomingMessage): AuthenticationOutcome {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    if (this.outcomes.has(socket)) return this.outcomes.get(socket);
    const outcome = this.verify(socket);
    this.outcomes.set(socket, outcome);
    return outcome;
  }

  private verify(socket: TLSSocket): AuthenticationOutcome {
    const cert = peerCertificate(socket);
    if (cert === undefined) return undefined;
    const problem = clientCertificateProblem(cert, this.authorities, this.now());
    if (problem !== undefined) return { error: problem };
    const subject = parseDistinguishedName(cert.subject);
    const name = subject.CN?.[0] ?? '';
    if (name === '') return { error: 'x509: certificate has no common name' };
    return { user: { name, groups: subject.O ?? [] } };
  }
}

/** The peer's certificate on a TLS connection, or undefined when it sent none. */
export function peerCertificate(socket: TLSSocket): X509Certificate | undefined {
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const peer = socket.getPeerCertificate(false);
  if (peer === null || peer.raw === undefined) return undefined;
  return new X509Certificate(peer.raw);
}

/**
 * Why `cert` may not authenticate a client against `authorities` (valid now, issued and signed by one
 * of them, meant for client authentication), in Go's x509 words; undefined when it may.
 */
export function clientCertificateProblem(cert: X509Certificate, authorities: readonly X509Certificate[], now: number): string | undefined {
  if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) < now) return 'x509: certificate has expired or is not yet valid';
  if (!authorities.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey))) return 'x509: certificate signed by unknown authority';
  const usages = cert.keyUsage;
  if (usages !== undefined && usages.length > 0 && !usages.includes(CLIENT_AUTH_USAGE) && !usages.includes(ANY_USAGE)) {
    return 'x509: certificate specifies an incompatible key usage';
  }
  return undefined;
}

/** The attributes of a subject as Node prints it (`CN=x\nO=a\nO=b`), escapes undone. */
export function parseDistinguishedName(subject: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of subject.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1).replace(/\\(.)/g, '$1');
    (out[key] ??= []).push(value);
  }
  return out;
}

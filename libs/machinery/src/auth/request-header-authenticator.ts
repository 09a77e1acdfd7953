import type { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Authenticator, AuthenticationOutcome } from './authenticator';
import { clientCertificateProblem, parseDistinguishedName, peerCertificate } from './x509-authenticator';

/** The `--requestheader-*` flags: which proxy may assert identities, and in which headers. */
export interface RequestHeaderOptions {
  /** `--requestheader-client-ca-file`: the proxy's client certificate must chain to it. */
  clientCaFile: string;
  /** `--requestheader-allowed-names`: CommonNames the proxy's certificate may have; empty allows any. */
  allowedNames?: readonly string[];
  /** `--requestheader-username-headers`: the first of them with a value names the user. */
  usernameHeaders: readonly string[];
  /** `--requestheader-group-headers`: every value of each is a group. */
  groupHeaders?: readonly string[];
  /** `--requestheader-extra-headers-prefix`: `<prefix><key>: value` is extra `key` (lower case, %-escapes undone). */
  extraHeadersPrefix?: readonly string[];
}

/**
 * Kubernetes' front-proxy authenticator: a request over a connection whose client certificate chains
 * to the request-header CA (with an allowed CommonName) is the user its headers name. The identity
 * headers are removed from every request, so nothing later can read an identity a caller merely claimed.
 */
export class RequestHeaderAuthenticator implements Authenticator {
  readonly name = 'requestheader';
  private readonly usernameHeaders: string[];
  private readonly groupHeaders: string[];
  private readonly extraPrefixes: string[];
  private readonly allowedNames: ReadonlySet<string>;
  // A connection's certificate cannot change: its verdict is kept per connection.
  private readonly verdicts = new WeakMap<TLSSocket, string | undefined | null>();

  constructor(
    private readonly authorities: readonly X509Certificate[],
    options: Omit<RequestHeaderOptions, 'clientCaFile'>,
    private readonly now: () => number = Date.now,
  ) {
    const names = (list: readonly string[] | undefined) => (list ?? []).map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
    this.usernameHeaders = names(options.usernameHeaders);
    this.groupHeaders = names(options.groupHeaders);
    this.extraPrefixes = names(options.extraHeadersPrefix);
    this.allowedNames = new Set(options.allowedNames ?? []);
  }

  authenticate(req: IncomingMessage): AuthenticationOutcome {
    const claimed = this.claimedIdentity(req);
    this.stripIdentityHeaders(req);
    if (claimed === undefined) return undefined;
    const verdict = this.verdict(req.socket as TLSSocket);
    // null: no client certificate, so the headers were nobody's claim and the other authenticators decide.
    if (verdict === null) return undefined;
    if (verdict !== undefined) return { error: verdict };
    return { user: claimed };
  }

  /** null when the connection has no client certificate, a reason when it may not proxy, undefined when it may. */
  private verdict(socket: TLSSocket): string | undefined | null {
    if (this.verdicts.has(socket)) return this.verdicts.get(socket);
    let verdict: string | undefined | null;
    const cert = peerCertificate(socket);
    if (cert === undefined) verdict = null;
    else {
      verdict = clientCertificateProblem(cert, this.authorities, this.now());
      if (verdict === undefined && this.allowedNames.size > 0) {
        const cn = parseDistinguishedName(cert.subject).CN?.[0] ?? '';
        if (!this.allowedNames.has(cn)) verdict = `x509: subject with cn=${cn} is not in the allowed list`;
      }
    }
    this.verdicts.set(socket, verdict);
    return verdict;
  }

  private claimedIdentity(req: IncomingMessage): { name: string; groups: string[]; extra?: Record<string, string[]> } | undefined {
    const values = headerValues(req);
    let name: string | undefined;
    for (const header of this.usernameHeaders) {
      name = values.get(header)?.find((v) => v !== '');
      if (name !== undefined) break;
    }
    if (name === undefined) return undefined;
    const groups: string[] = [];
    for (const header of this.groupHeaders) for (const value of values.get(header) ?? []) if (value !== '') groups.push(value);
    const extra: Record<string, string[]> = {};
    for (const [header, list] of values) {
      const prefix = this.extraPrefixes.find((p) => header.startsWith(p) && header.length > p.length);
      if (prefix === undefined) continue;
      const key = unescapeExtraKey(header.slice(prefix.length));
      (extra[key] ??= []).push(...list);
    }
    return Object.keys(extra).length > 0 ? { name, groups, extra } : { name, groups };
  }

  private stripIdentityHeaders(req: IncomingMessage): void {
    for (const header of Object.keys(req.headers)) {
      if (this.usernameHeaders.includes(header) || this.groupHeaders.includes(header) || this.extraPrefixes.some((p) => header.startsWith(p))) {
        delete req.headers[header];
      }
    }
  }
}

/** Each header's values as sent, one per header line (Node joins repeated lines in `req.headers`). */
function headerValues(req: IncomingMessage): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const list = out.get(name);
    if (list === undefined) out.set(name, [raw[i + 1].trim()]);
    else list.push(raw[i + 1].trim());
  }
  return out;
}

/** Kubernetes escapes characters a header name cannot hold in an extra's key with %XX. */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

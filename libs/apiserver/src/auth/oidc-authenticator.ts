import { compactVerify, decodeJwt, type JWTPayload } from 'jose';
import type { AuthenticationOutcome } from '@svc/machinery';
import { IssuerKeys, type IssuerKeysOptions } from './issuer-keys';
import type { TokenAuthenticator } from './token-authenticator';
import type { UserInfo } from '@svc/machinery';

/** The `--oidc-*` flags. */
export interface OidcOptions {
  /** `--oidc-issuer-url`: HTTPS; a token's `iss` must be exactly this. */
  issuerUrl: string;
  /** `--oidc-client-id`: a token's `aud` must hold it. */
  clientId: string;
  /** `--oidc-ca-file`: PEM trusted for the issuer's HTTPS; the host's roots otherwise. */
  caFile?: string;
  /** `--oidc-username-claim` (default `sub`). */
  usernameClaim?: string;
  /** `--oidc-username-prefix`: `-` for none; by default the issuer URL and `#`, except for the `email` claim. */
  usernamePrefix?: string;
  /** `--oidc-groups-claim`: a string or an array of strings. */
  groupsClaim?: string;
  /** `--oidc-groups-prefix`. */
  groupsPrefix?: string;
  /** `--oidc-required-claim`: each claim must be present with this string value. */
  requiredClaims?: Readonly<Record<string, string>>;
  /** `--oidc-signing-algs` (default RS256). */
  signingAlgs?: readonly string[];
  /** Least time between two key-set fetches an unknown key id causes (default 10 s). */
  keyRefreshIntervalMs?: number;
}

// go-oidc's allowance for an issuer whose clock runs ahead (`nbf`); expiry gets none.
const NOT_BEFORE_SKEW_MS = 5 * 60 * 1000;

/**
 * Kubernetes' OIDC token authenticator: a JWT whose `iss` is the configured issuer must be signed by
 * one of its keys with an allowed algorithm, be meant for the client id, be within `nbf`..`exp`, and
 * carry the required claims; the user is the username claim (prefixed), the groups the groups claim
 * (prefixed). A token of another issuer is not this authenticator's to judge.
 */
export class OidcAuthenticator implements TokenAuthenticator {
  readonly name = 'oidc';
  private readonly usernameClaim: string;
  private readonly usernamePrefix: string;
  private readonly algorithms: string[];

  constructor(
    private readonly options: OidcOptions,
    private readonly keys: IssuerKeys,
    /** The server's own audiences (`--api-audiences`): a TokenReview naming others is not answered by this audience-unaware authenticator. */
    private readonly apiAudiences: readonly string[] = [],
    private readonly now: () => number = Date.now,
  ) {
    this.usernameClaim = options.usernameClaim || 'sub';
    this.usernamePrefix = defaultUsernamePrefix(options.issuerUrl, this.usernameClaim, options.usernamePrefix);
    this.algorithms = [...(options.signingAlgs && options.signingAlgs.length > 0 ? options.signingAlgs : ['RS256'])];
  }

  static create(options: OidcOptions, ca: string | undefined, apiAudiences?: readonly string[], keyOptions: IssuerKeysOptions = {}): OidcAuthenticator {
    const keys = new IssuerKeys(options.issuerUrl, { ca, refreshIntervalMs: options.keyRefreshIntervalMs, ...keyOptions });
    keys.prime();
    return new OidcAuthenticator(options, keys, apiAudiences);
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationOutcome> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return undefined;
    }
    if (unverified.iss !== this.options.issuerUrl) return undefined;
    let matched: string[] | undefined;
    if (audiences !== undefined && audiences.length > 0) {
      matched = this.apiAudiences.filter((a) => audiences.includes(a));
      if (matched.length === 0) return undefined;
    }
    let claims: Record<string, unknown>;
    try {
      const { payload } = await compactVerify(token, this.keys.resolve, { algorithms: this.algorithms });
      claims = JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      return { error: `oidc: verify token: ${error instanceof Error ? error.message : String(error)}` };
    }
    const result = this.userOf(claims);
    if ('error' in result) return result;
    return matched === undefined ? { user: result.user } : { user: result.user, audiences: matched };
  }

  private userOf(claims: Record<string, unknown>): { user: UserInfo } | { error: string } {
    if (claims.iss !== this.options.issuerUrl) return { error: 'oidc: token issued by a different provider' };
    const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!aud.includes(this.options.clientId)) return { error: `oidc: expected audience "${this.options.clientId}" got ${JSON.stringify(aud)}` };
    const now = this.now();
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) return { error: 'oidc: token is expired' };
    if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf * 1000 > now + NOT_BEFORE_SKEW_MS)) {
      return { error: 'oidc: current time is before the nbf (not before) time' };
    }
    const username = claims[this.usernameClaim];
    if (typeof username !== 'string' || username === '') return { error: `oidc: claim "${this.usernameClaim}" is missing or not a non-empty string` };
    if (this.usernameClaim === 'email' && claims.email_verified !== undefined && claims.email_verified !== true) {
      return { error: 'oidc: email not verified' };
    }
    for (const [claim, value] of Object.entries(this.options.requiredClaims ?? {})) {
      if (claims[claim] === undefined) return { error: `oidc: required claim ${claim} not present in ID token` };
      if (claims[claim] !== value) return { error: `oidc: required claim ${claim} value does not match` };
    }
    const groups: string[] = [];
    if (this.options.groupsClaim) {
      const value = claims[this.options.groupsClaim];
      if (typeof value === 'string') groups.push(value);
      else if (Array.isArray(value) && value.every((g) => typeof g === 'string')) groups.push(...value);
      else if (value !== undefined) return { error: `oidc: claim "${this.options.groupsClaim}" is neither a string nor a list of strings` };
    }
    const prefix = this.options.groupsPrefix ?? '';
    return { user: { name: this.usernamePrefix + username, groups: groups.map((g) => prefix + g) } };
  }
}

/** Kubernetes' rule: `-` means none; unset means the issuer URL and `#` unless the claim is `email`. */
export function defaultUsernamePrefix(issuerUrl: string, usernameClaim: string, given: string | undefined): string {
  if (given === '-') return '';
  if (given !== undefined && given !== '') return given;
  return usernameClaim === 'email' ? '' : `${issuerUrl}#`;
}

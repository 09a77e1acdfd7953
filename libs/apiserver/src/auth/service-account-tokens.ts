import { createHash, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeJwt, decodeProtectedHeader, exportJWK, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { AuthenticationOutcome } from '@svc/machinery';
import { API_ACCESS_TOKEN_EXPIRATION_SECONDS } from '../admission/service-account';
import type { TokenAuthenticator } from './token-authenticator';
import type { UserInfo } from '@svc/machinery';

/** Longest token read as a JWT: far above any service account token, far below anything costly to decode. */
export const MAX_JWT_LENGTH = 8 * 1024;
/** Kubernetes' floor and default for a requested token's lifetime. */
export const MIN_TOKEN_SECONDS = 600;
export const DEFAULT_TOKEN_SECONDS = 3600;

export interface ServiceAccountTokenOptions {
  /** `--service-account-signing-key-file` (PEM private key, RSA or EC P-256). */
  signingKeyFile: string;
  /** `--service-account-key-file`: more verification keys (PEM, public or private); the signing key verifies too. */
  keyFiles?: readonly string[];
  /** `--service-account-issuer`: the first signs, all are accepted. */
  issuers: readonly string[];
  /** `--api-audiences`; the first issuer when empty. */
  audiences?: readonly string[];
  /** `--service-account-max-token-expiration`, in seconds; 0 or absent for no cap. */
  maxExpirationSeconds?: number;
  /** `--service-account-jwks-uri`: what the discovery document names as the key set. */
  jwksUri?: string;
  /**
   * `--service-account-extend-token-expiration` (on by default): a token for the API server bound to a
   * pod and asked for 3607 s (the `kube-api-access` volume's) stays valid a year, with a `warnafter` claim
   * at the time asked, so that agents that refresh late do not break their pods.
   */
  extendExpiration?: boolean;
}

/** The lifetime a pod-bound token of the `kube-api-access` volume is extended to: one year, as Kubernetes does. */
export const EXTENDED_TOKEN_SECONDS = 365 * 24 * 60 * 60;

/** An object a token is bound to: invalid once it is gone or replaced (another uid). */
export interface BoundObject {
  kind: 'Pod' | 'Secret';
  name: string;
  uid: string;
}

/** Reads a live object by resource, namespace and name: its uid, or undefined when it does not exist. */
export type ObjectUidLookup = (resource: 'serviceaccounts' | 'pods' | 'secrets', namespace: string, name: string) => Promise<string | undefined>;

interface ServiceAccountClaims {
  namespace?: string;
  serviceaccount?: { name?: string; uid?: string };
  pod?: { name?: string; uid?: string };
  secret?: { name?: string; uid?: string };
  /** Seconds since the epoch after which an extended token counts as stale. */
  warnafter?: number;
}

const SIGNING_ALGORITHMS = ['RS256', 'ES256'];

/**
 * Kubernetes' service account tokens: JWTs the server signs for TokenRequest and verifies as a token
 * authenticator (issuer, audience, expiry, signature by key id), valid only while the service account
 * and the object the token is bound to still exist with the uids it names.
 */
export class ServiceAccountTokens implements TokenAuthenticator {
  readonly name = 'service-account';
  readonly issuer: string;
  readonly audiences: readonly string[];
  private readonly signingKey: KeyObject;
  private readonly signingKid: string;
  private readonly algorithm: string;
  private readonly verifyKeys = new Map<string, { key: KeyObject; alg: string }>();

  constructor(
    private readonly options: ServiceAccountTokenOptions,
    private readonly lookup: ObjectUidLookup,
    private readonly now: () => number = Date.now,
  ) {
    if (options.issuers.length === 0) throw new Error('--service-account-issuer is required with --service-account-signing-key-file');
    this.issuer = options.issuers[0];
    this.audiences = options.audiences && options.audiences.length > 0 ? options.audiences : [this.issuer];
    this.signingKey = createPrivateKey(readFileSync(options.signingKeyFile, 'utf8'));
    this.algorithm = algorithmOf(createPublicKey(this.signingKey));
    this.signingKid = this.addVerifyKey(createPublicKey(this.signingKey));
    for (const file of options.keyFiles ?? []) {
      const pem = readFileSync(file, 'utf8');
      for (const block of pem.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? []) {
        this.addVerifyKey(block.includes('PRIVATE KEY') ? createPublicKey(createPrivateKey(block)) : createPublicKey(block));
      }
    }
  }

  private addVerifyKey(key: KeyObject): string {
    const kid = keyId(key);
    this.verifyKeys.set(kid, { key, alg: algorithmOf(key) });
    return kid;
  }

  /** The lifetime a request gets: at least 10 minutes, at most the configured cap. */
  expirationFor(requestedSeconds: number | undefined): number {
    const requested = requestedSeconds ?? DEFAULT_TOKEN_SECONDS;
    const cap = this.options.maxExpirationSeconds;
    return cap !== undefined && cap > 0 ? Math.min(requested, cap) : requested;
  }

  /** A signed token for the service account, bound to `bound` when given. */
  async issue(request: {
    namespace: string;
    serviceAccount: { name: string; uid: string };
    audiences?: readonly string[];
    expirationSeconds: number;
    bound?: BoundObject;
  }): Promise<{ token: string; expiresAt: Date }> {
    const issuedAt = Math.floor(this.now() / 1000);
    const audiences = request.audiences && request.audiences.length > 0 ? [...request.audiences] : [...this.audiences];
    const extended = this.extends(request.expirationSeconds, audiences, request.bound);
    const expiresAt = issuedAt + (extended ? EXTENDED_TOKEN_SECONDS : request.expirationSeconds);
    const claims: ServiceAccountClaims = { namespace: request.namespace, serviceaccount: request.serviceAccount };
    if (extended) claims.warnafter = issuedAt + request.expirationSeconds;
    if (request.bound?.kind === 'Pod') claims.pod = { name: request.bound.name, uid: request.bound.uid };
    if (request.bound?.kind === 'Secret') claims.secret = { name: request.bound.name, uid: request.bound.uid };
    const token = await new SignJWT({ 'kubernetes.io': claims })
      .setProtectedHeader({ alg: this.algorithm, kid: this.signingKid })
      .setIssuer(this.issuer)
      .setSubject(`system:serviceaccount:${request.namespace}:${request.serviceAccount.name}`)
      .setAudience(audiences)
      .setIssuedAt(issuedAt)
      .setNotBefore(issuedAt)
      .setExpirationTime(expiresAt)
      .setJti(randomUUID())
      .sign(this.signingKey);
    // What the caller asked for is what it is told, as Kubernetes does: it refreshes on that schedule.
    return { token, expiresAt: new Date((issuedAt + request.expirationSeconds) * 1000) };
  }

  /** Whether a token is extended (see extendExpiration): bound to a pod, asked for 3607 s, for this API server's audiences only. */
  private extends(expirationSeconds: number, audiences: readonly string[], bound: BoundObject | undefined): boolean {
    return (
      this.options.extendExpiration === true &&
      bound?.kind === 'Pod' &&
      expirationSeconds === API_ACCESS_TOKEN_EXPIRATION_SECONDS &&
      audiences.length === this.audiences.length &&
      audiences.every((audience) => this.audiences.includes(audience))
    );
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationOutcome> {
    if (token.length > MAX_JWT_LENGTH || token.split('.').length !== 3) return undefined;
    let issuer: string | undefined;
    let kid: string | undefined;
    try {
      issuer = decodeJwt(token).iss;
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return undefined;
    }
    // A JWT of another issuer is for another authenticator (OIDC).
    if (issuer === undefined || !this.options.issuers.includes(issuer)) return undefined;
    const key = kid === undefined ? undefined : this.verifyKeys.get(kid);
    if (key === undefined) return { error: 'service account token: unknown signing key' };
    const wanted = audiences && audiences.length > 0 ? audiences : this.audiences;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key.key, {
        issuer: [...this.options.issuers],
        audience: [...wanted],
        algorithms: SIGNING_ALGORITHMS,
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      return { error: `service account token: ${error instanceof Error ? error.message : String(error)}` };
    }
    const claims = (payload['kubernetes.io'] ?? {}) as ServiceAccountClaims;
    const namespace = claims.namespace;
    const account = claims.serviceaccount;
    if (!namespace || !account?.name || !account.uid) return { error: 'service account token: missing kubernetes.io claims' };
    if ((await this.lookup('serviceaccounts', namespace, account.name)) !== account.uid) {
      return { error: `service account token: serviceaccount ${namespace}/${account.name} no longer exists` };
    }
    const extra: Record<string, string[]> = {};
    if (claims.pod?.name) {
      if ((await this.lookup('pods', namespace, claims.pod.name)) !== claims.pod.uid) {
        return { error: `service account token: pod ${namespace}/${claims.pod.name} no longer exists` };
      }
      extra['authentication.kubernetes.io/pod-name'] = [claims.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [claims.pod.uid ?? ''];
    }
    if (claims.secret?.name && (await this.lookup('secrets', namespace, claims.secret.name)) !== claims.secret.uid) {
      return { error: `service account token: secret ${namespace}/${claims.secret.name} no longer exists` };
    }
    if (typeof payload.jti === 'string') extra['authentication.kubernetes.io/credential-id'] = [`JTI=${payload.jti}`];
    const user: UserInfo = {
      name: `system:serviceaccount:${namespace}:${account.name}`,
      uid: account.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
      extra,
    };
    const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [];
    return { user, audiences: wanted.filter((a) => aud.includes(a)) };
  }

  /** The OpenID discovery document of the issuer (`/.well-known/openid-configuration`). */
  discoveryDocument(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      jwks_uri: this.options.jwksUri ?? `${this.issuer.replace(/\/$/, '')}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [...new Set([...this.verifyKeys.values()].map((k) => k.alg))].sort(),
    };
  }

  /** The public keys (`/openid/v1/jwks`). */
  async keySet(): Promise<{ keys: JWK[] }> {
    const keys: JWK[] = [];
    for (const [kid, { key, alg }] of this.verifyKeys) keys.push({ ...(await exportJWK(key)), kid, alg, use: 'sig' });
    return { keys };
  }
}

function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(`service account keys must be RSA or EC P-256, not ${key.asymmetricKeyType ?? 'unknown'}`);
}

/** Kubernetes' key id: the unpadded base64url SHA-256 of the public key's DER (SubjectPublicKeyInfo). */
function keyId(key: KeyObject): string {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

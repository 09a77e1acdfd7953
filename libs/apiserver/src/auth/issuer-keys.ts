import { request as httpsRequest } from 'node:https';
import { createLocalJWKSet, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput, type KeyLike } from 'jose';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '@svc/machinery';

/** The largest discovery document or key set read from an issuer. */
export const MAX_ISSUER_DOCUMENT_BYTES = 1024 * 1024;
/** More keys than any issuer publishes; a larger set is refused rather than searched. */
export const MAX_ISSUER_KEYS = 100;
const FETCH_TIMEOUT_MS = 10_000;
/** Least time between two fetches of the key set (an unknown key id asks for one; a flood must not). */
export const DEFAULT_KEY_REFRESH_INTERVAL_MS = 10_000;

/** GETs a JSON document over HTTPS; the issuer's is the default, tests give their own. */
export type JsonFetcher = (url: string) => Promise<unknown>;

export interface IssuerKeysOptions {
  /** PEM bundle trusted for the issuer's HTTPS (`--oidc-ca-file`); the host's roots otherwise. */
  ca?: string;
  refreshIntervalMs?: number;
  fetchJson?: JsonFetcher;
  now?: () => number;
}

type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<KeyLike>;

/**
 * An OpenID issuer's signing keys: its discovery document (`/.well-known/openid-configuration`, whose
 * `issuer` must be the configured URL exactly) names the key set, fetched when first needed and again
 * when a token names a key it lacks (the issuer rotated its keys), at most once per refresh interval.
 * Until a fetch has succeeded, every token is refused as not yet verifiable.
 */
export class IssuerKeys {
  private keys: KeyResolver | undefined;
  private jwksUri: string | undefined;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private lastError = 'the issuer has not been reached yet';
  private readonly fetchJson: JsonFetcher;
  private readonly refreshIntervalMs: number;
  private readonly now: () => number;

  constructor(
    readonly issuerUrl: string,
    options: IssuerKeysOptions = {},
  ) {
    this.fetchJson = options.fetchJson ?? ((url) => fetchJsonOverHttps(url, options.ca));
    this.refreshIntervalMs = options.refreshIntervalMs ?? DEFAULT_KEY_REFRESH_INTERVAL_MS;
    this.now = options.now ?? Date.now;
  }

  /** Starts the first fetch, so the first token does not wait for it. */
  prime(): void {
    void this.refresh();
  }

  /** The key a token's header names: jose's key resolver over the current set, refreshed once when the key is unknown. */
  readonly resolve: KeyResolver = async (header, token) => {
    if (this.keys === undefined) await this.refresh();
    if (this.keys === undefined) throw new Error(`oidc: authenticator not initialized: ${this.lastError}`);
    try {
      return await this.keys(header, token);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
      await this.refresh();
      return this.keys(header, token);
    }
  };

  /** Fetches discovery (until it has succeeded once) and the key set, unless one was attempted within the interval. */
  private refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.now() - this.lastAttempt < this.refreshIntervalMs) return Promise.resolve();
    this.lastAttempt = this.now();
    this.inFlight = this.fetchKeys()
      .then(
        (keys) => {
          this.keys = keys;
        },
        (error: unknown) => {
          this.lastError = error instanceof Error ? error.message : String(error);
        },
      )
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<KeyResolver> {
    if (this.jwksUri === undefined) {
      const url = `${this.issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
      const doc = await this.fetchJson(url);
      if (!isObject(doc)) throw new Error(`${url}: not a JSON object`);
      if (doc.issuer !== this.issuerUrl)
        throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${this.issuerUrl}" got "${String(doc.issuer)}"`);
      if (typeof doc.jwks_uri !== 'string' || !doc.jwks_uri.startsWith('https://')) throw new Error(`${url}: jwks_uri must be an https URL`);
      this.jwksUri = doc.jwks_uri;
    }
    const set = await this.fetchJson(this.jwksUri);
    if (!isObject(set) || !Array.isArray(set.keys)) throw new Error(`${this.jwksUri}: not a JSON Web Key Set`);
    if (set.keys.length > MAX_ISSUER_KEYS) throw new Error(`${this.jwksUri}: more than ${MAX_ISSUER_KEYS} keys`);
    return createLocalJWKSet(set as unknown as JSONWebKeySet);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** GET `url` over HTTPS trusting `ca` (the host's roots without it), bounded in time, size and nesting. */
export function fetchJsonOverHttps(url: string, ca?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return reject(new Error(`invalid URL ${url}`));
    }
    if (parsed.protocol !== 'https:') return reject(new Error(`${url}: only https is fetched`));
    const req = httpsRequest(parsed, { method: 'GET', ca, agent: false, headers: { Accept: 'application/json' }, timeout: FETCH_TIMEOUT_MS }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`GET ${url}: ${res.statusCode}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ISSUER_DOCUMENT_BYTES) {
          req.destroy(new Error(`GET ${url}: answer larger than ${MAX_ISSUER_DOCUMENT_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (jsonNestingDepth(text) > MAX_NESTING_DEPTH) return reject(new Error(`GET ${url}: JSON nested too deeply`));
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new Error(`GET ${url}: not JSON`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on('error', (error) => reject(error instanceof Error ? error : new Error(String(error))));
    req.end();
  });
}

import { createHash } from 'node:crypto';
import type { ClientConfig } from '@svc/client';
import { kubeconfigTarget, postJson } from '../webhook-client/post-json';
import type { AuthenticationOutcome } from '@svc/machinery';
import type { TokenAuthenticator } from './token-authenticator';

/** `--authentication-token-webhook-*`. */
export interface TokenWebhookOptions {
  /** The kubeconfig-format `--authentication-token-webhook-config-file`: `server` is the webhook's URL. */
  client: ClientConfig;
  /** `--authentication-token-webhook-cache-ttl`: how long an answer (yes or no) is kept per token. */
  cacheTtlMs: number;
  /** `--authentication-token-webhook-version`: the TokenReview version exchanged. */
  version: 'v1' | 'v1beta1';
  /** One call's deadline. */
  timeoutMs?: number;
}

/** The largest webhook answer read. */
export const MAX_TOKEN_REVIEW_RESPONSE_BYTES = 1024 * 1024;
/** Tokens whose answers are kept at once; the oldest answer goes first. */
export const MAX_CACHED_TOKENS = 10_000;
const DEFAULT_TIMEOUT_MS = 30_000;

interface CachedAnswer {
  outcome: AuthenticationOutcome;
  until: number;
}

/**
 * Kubernetes' webhook token authenticator: the token goes to the webhook in a TokenReview, whose
 * `status.authenticated` and `status.user` decide. Answers are kept per token (its hash) for the cache
 * TTL, refusals too; a failed call is not kept, and is a refusal of this request only.
 */
export class TokenWebhookAuthenticator implements TokenAuthenticator {
  readonly name = 'webhook';
  private readonly cache = new Map<string, CachedAnswer>();
  private readonly url: URL;

  constructor(
    private readonly options: TokenWebhookOptions,
    /** The server's own audiences (`--api-audiences`), sent when a request names none. */
    private readonly apiAudiences: readonly string[] = [],
    private readonly now: () => number = Date.now,
  ) {
    this.url = new URL(options.client.server);
    if (this.url.protocol !== 'https:' && this.url.protocol !== 'http:') throw new Error(`token webhook server ${options.client.server} is not an http(s) URL`);
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationOutcome> {
    const wanted = audiences && audiences.length > 0 ? [...audiences] : [...this.apiAudiences];
    const key = createHash('sha256').update(token).update('\0').update(wanted.join('\0')).digest('base64');
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.until > this.now()) return cached.outcome;
    if (cached !== undefined) this.cache.delete(key);
    let outcome: AuthenticationOutcome;
    try {
      outcome = answerOf(await this.review(token, wanted), wanted);
    } catch (error) {
      return { error: `webhook: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (this.options.cacheTtlMs > 0) {
      if (this.cache.size >= MAX_CACHED_TOKENS) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, { outcome, until: this.now() + this.options.cacheTtlMs });
    }
    return outcome;
  }

  private review(token: string, audiences: string[]): Promise<unknown> {
    const apiVersion = `authentication.k8s.io/${this.options.version}`;
    const spec: Record<string, unknown> = { token };
    if (audiences.length > 0) spec.audiences = audiences;
    return postJson(
      kubeconfigTarget(this.url, this.options.client),
      { apiVersion, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec },
      { timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxResponseBytes: MAX_TOKEN_REVIEW_RESPONSE_BYTES },
    );
  }
}

/** The outcome a TokenReview answer stands for; throws when it is no TokenReview. */
function answerOf(answer: unknown, wanted: readonly string[]): AuthenticationOutcome {
  const review = object(answer);
  if (review?.kind !== 'TokenReview') throw new Error('the answer is not a TokenReview');
  const status = object(review.status) ?? {};
  if (status.authenticated !== true) {
    // Not authenticated and no reason: the token is not the webhook's, as Kubernetes reads it.
    return typeof status.error === 'string' && status.error !== '' ? { error: `webhook: ${status.error}` } : undefined;
  }
  const user = object(status.user) ?? {};
  if (typeof user.username !== 'string' || user.username === '') throw new Error('an authenticated TokenReview names no user');
  const info: { name: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } = { name: user.username, groups: strings(user.groups) };
  if (typeof user.uid === 'string' && user.uid !== '') info.uid = user.uid;
  const extra = object(user.extra);
  if (extra !== undefined) {
    const entries = Object.entries(extra).map(([k, v]) => [k, strings(v)] as const);
    if (entries.length > 0) info.extra = Object.fromEntries(entries);
  }
  if (wanted.length === 0) return { user: info };
  // An audience-aware webhook names the audiences it matched; one that names none is taken to have checked ours.
  const got = strings(status.audiences);
  const matched = got.length === 0 ? [...wanted] : wanted.filter((a) => got.includes(a));
  if (matched.length === 0) return undefined;
  return { user: info, audiences: matched };
}

function object(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Client, clientConfigFromOptions } from '@svc/client';
import { errorMessage } from '@svc/machinery';

/** Who made a request, as a TokenReview tells it. */
export interface DelegatedUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What a component's HTTPS endpoint answers a request: served, or refused with a Status. */
export type AuthDecision = { allowed: true; user: DelegatedUser } | { allowed: false; code: 401 | 403 | 500; reason: string; message: string };

export interface DelegatedAuthOptions {
  /** Asks TokenReviews of the bearer tokens; absent: every request is anonymous, its token unread. */
  authentication?: { client: Client; cacheTtlMs: number };
  /** Asks SubjectAccessReviews; absent: only `alwaysAllowPaths` are served. */
  authorization?: { client: Client; allowedTtlMs: number; deniedTtlMs: number };
  /** Served to anyone authenticated or anonymous: an entry ending in `*` matches by prefix, any other exactly. */
  alwaysAllowPaths: readonly string[];
}

export const ANONYMOUS: DelegatedUser = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Answers kept at most; beyond it the oldest go first. */
const CACHE_ENTRIES = 1024;

/** Whether `path` is one of `allowed` (exact, or by prefix for an entry ending in `*`). */
export function isPathAllowed(path: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => (entry.endsWith('*') ? path.startsWith(entry.slice(0, -1)) : path === entry));
}

class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until > Date.now()) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until: Date.now() + ttlMs });
  }
}

interface TokenReviewAnswer {
  status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }; error?: string };
}

interface SubjectAccessReviewAnswer {
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

/**
 * Kubernetes' delegated authentication and authorization of a component's endpoint (the controller
 * manager's and scheduler's `/metrics`): a bearer token is checked with a TokenReview (a bad one is
 * 401, on every path), a request without one is anonymous, and a path outside `alwaysAllowPaths` is
 * served only when a SubjectAccessReview of its non-resource URL and verb allows it (403 otherwise).
 * Answers are kept for the cache TTLs, as the webhook authenticator and authorizer keep them.
 */
export class DelegatedAuth {
  private readonly users = new TtlCache<DelegatedUser | null>();
  private readonly decisions = new TtlCache<{ allowed: boolean; reason: string }>();

  constructor(private readonly options: DelegatedAuthOptions) {}

  async check(req: IncomingMessage, path: string): Promise<AuthDecision> {
    const user = await this.authenticate(req);
    if (!user) return { allowed: false, code: 401, reason: 'Unauthorized', message: 'Unauthorized' };
    if (isPathAllowed(path, this.options.alwaysAllowPaths)) return { allowed: true, user };
    const verb = (req.method ?? 'GET').toLowerCase();
    const forbidden = `forbidden: User "${user.username}" cannot ${verb} path "${path}"`;
    const authorization = this.options.authorization;
    if (!authorization) return { allowed: false, code: 403, reason: 'Forbidden', message: forbidden };
    let decision: { allowed: boolean; reason: string };
    try {
      decision = await this.authorize(authorization, user, path, verb);
    } catch (error) {
      return { allowed: false, code: 500, reason: 'InternalError', message: `Internal Server Error: "${path}": ${errorMessage(error)}` };
    }
    if (decision.allowed) return { allowed: true, user };
    return { allowed: false, code: 403, reason: 'Forbidden', message: decision.reason ? `${forbidden}: ${decision.reason}` : forbidden };
  }

  /** The caller, anonymous without a token; undefined for a token the server does not accept. */
  private async authenticate(req: IncomingMessage): Promise<DelegatedUser | undefined> {
    const authentication = this.options.authentication;
    const header = req.headers.authorization;
    const token = typeof header === 'string' && /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() : '';
    if (!authentication || token === '') return ANONYMOUS;
    const key = createHash('sha256').update(token).digest('hex');
    const cached = this.users.get(key);
    if (cached !== undefined) return cached ?? undefined;
    let user: DelegatedUser | null = null;
    try {
      const answer = await authentication.client.rest.request<TokenReviewAnswer>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/tokenreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      const found = answer?.status?.user;
      if (answer?.status?.authenticated && found?.username) {
        user = { username: found.username, uid: found.uid, groups: found.groups ?? [], extra: found.extra };
      }
    } catch {
      // The server could not say: the request is refused as unauthenticated, and the answer not kept.
      return undefined;
    }
    this.users.set(key, user, authentication.cacheTtlMs);
    return user ?? undefined;
  }

  private async authorize(
    authorization: NonNullable<DelegatedAuthOptions['authorization']>,
    user: DelegatedUser,
    path: string,
    verb: string,
  ): Promise<{ allowed: boolean; reason: string }> {
    const spec = { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, nonResourceAttributes: { path, verb } };
    const key = JSON.stringify(spec);
    const cached = this.decisions.get(key);
    if (cached) return cached;
    const answer = await authorization.client.rest.request<SubjectAccessReviewAnswer>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec },
    });
    const decision = { allowed: answer?.status?.allowed === true, reason: answer?.status?.reason ?? '' };
    this.decisions.set(key, decision, decision.allowed ? authorization.allowedTtlMs : authorization.deniedTtlMs);
    return decision;
  }

  /** Closes the review clients. */
  close(): void {
    this.options.authentication?.client.close();
    if (this.options.authorization?.client !== this.options.authentication?.client) this.options.authorization?.client.close();
  }
}

/** The delegated-auth flags a component shares with Kubernetes' (`--authentication-svcconfig`, ...), durations in ms. */
export interface DelegatedAuthFlags {
  authenticationSvcconfig?: string;
  authenticationTokenWebhookCacheTtl?: number;
  authorizationSvcconfig?: string;
  authorizationAlwaysAllowPaths: readonly string[];
  authorizationWebhookCacheAuthorizedTtl?: number;
  authorizationWebhookCacheUnauthorizedTtl?: number;
}

/** The endpoint's authentication and authorization as the flags describe them, the review clients connected through the given files. */
export async function delegatedAuthFromFlags(o: DelegatedAuthFlags): Promise<DelegatedAuth> {
  const connect = async (file: string, flag: string) => {
    try {
      return new Client(await clientConfigFromOptions({ svcconfig: file }));
    } catch (error) {
      throw new Error(`${flag}: ${errorMessage(error)}`);
    }
  };
  return new DelegatedAuth({
    alwaysAllowPaths: o.authorizationAlwaysAllowPaths,
    authentication: o.authenticationSvcconfig
      ? { client: await connect(o.authenticationSvcconfig, '--authentication-svcconfig'), cacheTtlMs: o.authenticationTokenWebhookCacheTtl ?? 10_000 }
      : undefined,
    authorization: o.authorizationSvcconfig
      ? {
          client: await connect(o.authorizationSvcconfig, '--authorization-svcconfig'),
          allowedTtlMs: o.authorizationWebhookCacheAuthorizedTtl ?? 10_000,
          deniedTtlMs: o.authorizationWebhookCacheUnauthorizedTtl ?? 10_000,
        }
      : undefined,
  });
}

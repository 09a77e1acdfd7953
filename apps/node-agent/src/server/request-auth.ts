import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Client } from '@svc/client';
import { errorMessage } from '@svc/machinery';

export interface RequestUser {
  name: string;
  groups: string[];
}

export interface AuthSettings {
  /** Client certificates signed by `x509.clientCAFile` authenticate; their CN is the user, O the groups. */
  x509: boolean;
  /** `webhook.enabled`: bearer tokens are checked with a TokenReview. */
  webhookAuthentication: boolean;
  webhookAuthenticationTtlMs: number;
  anonymous: boolean;
  mode: 'AlwaysAllow' | 'Webhook';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  nodeName: string;
}

export type AuthOutcome = { ok: true; user: RequestUser } | { ok: false; code: 401 | 403; message: string };

/** Kubernetes' node agent authorization attributes of a request path: `nodes/<subresource>` of this node. */
export function nodeSubresource(path: string): string {
  if (path.startsWith('/stats')) return 'stats';
  if (path.startsWith('/metrics')) return 'metrics';
  if (path.startsWith('/logs')) return 'log';
  if (path.startsWith('/spec')) return 'spec';
  if (path.startsWith('/checkpoint')) return 'checkpoint';
  return 'proxy';
}

function verbOf(method: string | undefined): string {
  switch ((method ?? 'GET').toUpperCase()) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'get';
  }
}

interface Cached<T> {
  value: T;
  expires: number;
}

/**
 * Authentication (client certificate, bearer token through TokenReview, anonymous) and
 * authorization (AlwaysAllow, or a SubjectAccessReview asked of the API server, answers cached for
 * their TTLs) of requests to the node agent's server, as spec 3's `authentication` and `authorization`.
 */
export class RequestAuth {
  private readonly tokens = new Map<string, Cached<RequestUser | undefined>>();
  private readonly decisions = new Map<string, Cached<{ allowed: boolean; reason: string }>>();

  constructor(
    private readonly client: Client,
    private readonly settings: AuthSettings,
  ) {}

  private authenticate(req: IncomingMessage): Promise<RequestUser | undefined> | RequestUser | undefined {
    const socket = req.socket as TLSSocket;
    if (this.settings.x509 && socket.authorized) {
      const subject = socket.getPeerCertificate()?.subject as unknown as Record<string, string | string[]> | undefined;
      const cn = subject?.CN;
      const o = subject?.O;
      if (cn) return { name: Array.isArray(cn) ? cn[0] : cn, groups: [...(Array.isArray(o) ? o : o ? [o] : []), 'system:authenticated'] };
    }
    const header = req.headers.authorization;
    if (this.settings.webhookAuthentication && header?.startsWith('Bearer ')) return this.reviewToken(header.slice('Bearer '.length).trim());
    return undefined;
  }

  private async reviewToken(token: string): Promise<RequestUser | undefined> {
    const hit = this.tokens.get(token);
    if (hit && hit.expires > Date.now()) return hit.value;
    let user: RequestUser | undefined;
    try {
      const review = await this.client.rest.request<{ status?: { authenticated?: boolean; user?: { username?: string; groups?: string[] } } }>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/tokenreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      if (review.status?.authenticated && review.status.user?.username) user = { name: review.status.user.username, groups: review.status.user.groups ?? [] };
    } catch {
      user = undefined;
    }
    this.tokens.set(token, { value: user, expires: Date.now() + this.settings.webhookAuthenticationTtlMs });
    return user;
  }

  private async authorize(user: RequestUser, verb: string, subresource: string): Promise<{ allowed: boolean; reason: string }> {
    if (this.settings.mode === 'AlwaysAllow') return { allowed: true, reason: '' };
    const key = JSON.stringify([user.name, user.groups, verb, subresource]);
    const hit = this.decisions.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    let decision: { allowed: boolean; reason: string };
    try {
      const review = await this.client.rest.request<{ status?: { allowed?: boolean; reason?: string } }>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: user.name, groups: user.groups, resourceAttributes: { verb, resource: 'nodes', subresource, name: this.settings.nodeName } },
        },
      });
      decision = { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
    } catch (error) {
      // Not cached: the API server may be back soon.
      return { allowed: false, reason: `cannot ask the API server: ${errorMessage(error)}` };
    }
    this.decisions.set(key, { value: decision, expires: Date.now() + (decision.allowed ? this.settings.authorizedTtlMs : this.settings.unauthorizedTtlMs) });
    return decision;
  }

  async check(req: IncomingMessage, path: string): Promise<AuthOutcome> {
    let user = await this.authenticate(req);
    if (!user) {
      if (!this.settings.anonymous) return { ok: false, code: 401, message: 'Unauthorized' };
      user = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    }
    const verb = verbOf(req.method);
    const subresource = nodeSubresource(path);
    const decision = await this.authorize(user, verb, subresource);
    if (!decision.allowed) {
      return {
        ok: false,
        code: 403,
        message: `Forbidden (user=${user.name}, verb=${verb}, resource=nodes, subresource=${subresource})${decision.reason ? `: ${decision.reason}` : ''}`,
      };
    }
    return { ok: true, user };
  }
}

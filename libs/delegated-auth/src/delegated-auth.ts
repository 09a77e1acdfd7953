import { createHash, type X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Client, clientConfigFromOptions } from '@svc/client';
import {
  AUTHENTICATION_INFO_CONFIGMAP,
  AUTHENTICATION_INFO_KEYS as KEYS,
  AUTHENTICATION_INFO_NAMESPACE,
  errorMessage,
  isNotFound,
  parseCertificateBundle,
  RequestAuthenticator,
  RequestHeaderAuthenticator,
  X509Authenticator,
  type Authenticator,
  type AuthenticationOutcome,
  type RequestHeaderOptions,
  type UserInfo,
} from '@svc/machinery';

/** What a component's HTTPS endpoint answers a request: served, or refused with a Status. */
export type AuthDecision = { allowed: true; user: UserInfo } | { allowed: false; code: 401 | 403 | 500; reason: string; message: string };

/** What a request asks to do, as a SubjectAccessReview states it. */
export type AccessAttributes =
  | { nonResourceAttributes: { path: string; verb: string } }
  | { resourceAttributes: { verb: string; group?: string; resource: string; subresource?: string; name?: string; namespace?: string } };

/** How an endpoint names what a request does, and how it words a refusal. */
export interface AccessDescriber {
  attributes(req: IncomingMessage, path: string): AccessAttributes;
  forbidden(user: UserInfo, attributes: AccessAttributes): string;
}

export interface DelegatedAuthOptions {
  /** Client certificates chaining to these authenticate as their CommonName in their Organizations. */
  clientCertificateAuthorities?: readonly X509Certificate[];
  /** A front proxy whose client certificate chains to these may assert the caller in headers. */
  requestHeader?: { authorities: readonly X509Certificate[] } & Omit<RequestHeaderOptions, 'clientCaFile'>;
  /** Asks TokenReviews of bearer tokens; absent: a bearer token is not read. */
  tokenReview?: { client: Client; cacheTtlMs: number };
  /** A request with no credential at all is `system:anonymous` (Kubernetes' components: yes); default true. */
  anonymous?: boolean;
  /** Asks SubjectAccessReviews; `AlwaysAllow` allows every authenticated request; absent: only `alwaysAllowPaths` are served. */
  authorization?: { client: Client; allowedTtlMs: number; deniedTtlMs: number } | 'AlwaysAllow';
  /** Served to anyone authenticated or anonymous: an entry ending in `*` matches by prefix, any other exactly. */
  alwaysAllowPaths: readonly string[];
  /** What a request is authorized as; default: its path as a non-resource URL and its method's verb. */
  access?: AccessDescriber;
}

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
 * Kubernetes' delegated token authenticator: a bearer token is whoever the API server's TokenReview
 * says (answers kept for the TTL, refusals too); a review that could not be asked refuses the
 * request and is not kept.
 */
class TokenReviewAuthenticator implements Authenticator {
  readonly name = 'tokenreview';
  private readonly users = new TtlCache<UserInfo | null>();

  constructor(private readonly options: { client: Client; cacheTtlMs: number }) {}

  async authenticate(req: IncomingMessage): Promise<AuthenticationOutcome> {
    const header = req.headers.authorization;
    if (typeof header !== 'string' || !/^bearer\s+/i.test(header)) return undefined;
    const token = header.replace(/^bearer\s+/i, '').trim();
    if (token === '') return undefined;
    const key = createHash('sha256').update(token).digest('hex');
    let user = this.users.get(key);
    if (user === undefined) {
      const answer = await this.options.client.rest.request<TokenReviewAnswer>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/tokenreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      const found = answer?.status?.user;
      user = answer?.status?.authenticated && found?.username ? { name: found.username, uid: found.uid, groups: found.groups ?? [], extra: found.extra } : null;
      this.users.set(key, user, this.options.cacheTtlMs);
    }
    return user ? { user } : { error: 'invalid bearer token' };
  }
}

/** The default: a path is a non-resource URL, the verb its method's (lower case). */
const NON_RESOURCE_ACCESS: AccessDescriber = {
  attributes: (req, path) => ({ nonResourceAttributes: { path, verb: (req.method ?? 'GET').toLowerCase() } }),
  forbidden: (user, attributes) =>
    'nonResourceAttributes' in attributes
      ? `forbidden: User "${user.name}" cannot ${attributes.nonResourceAttributes.verb} path "${attributes.nonResourceAttributes.path}"`
      : `forbidden: User "${user.name}"`,
};

/**
 * Kubernetes' delegated authentication and authorization of a component's endpoint (the controller
 * manager's, the scheduler's, the node agent's): the caller is found by client certificate, front
 * proxy headers or a bearer token checked with a TokenReview (a credential none accepts is 401, on
 * every path); a request without any is anonymous when allowed. A path outside `alwaysAllowPaths`
 * is served only when a SubjectAccessReview allows it (403 otherwise). Answers are kept for the
 * cache TTLs, as the webhook authenticator and authorizer keep them.
 */
export class DelegatedAuth {
  private readonly authenticator: RequestAuthenticator;
  private readonly decisions = new TtlCache<{ allowed: boolean; reason: string }>();
  private readonly access: AccessDescriber;

  constructor(private readonly options: DelegatedAuthOptions) {
    const authenticators: Authenticator[] = [];
    // The proxy's certificate is checked before the client CA's: a front proxy's certificate is no user's.
    if (options.requestHeader) authenticators.push(new RequestHeaderAuthenticator(options.requestHeader.authorities, options.requestHeader));
    if (options.clientCertificateAuthorities?.length) authenticators.push(new X509Authenticator(options.clientCertificateAuthorities));
    if (options.tokenReview) authenticators.push(new TokenReviewAuthenticator(options.tokenReview));
    this.authenticator = new RequestAuthenticator(authenticators, options.anonymous ?? true);
    this.access = options.access ?? NON_RESOURCE_ACCESS;
  }

  /**
   * The CAs a TLS server should name when it asks for a client certificate (clients pick theirs by
   * them), or undefined when no certificate is read.
   */
  get clientCertificateAuthorities(): X509Certificate[] | undefined {
    const all = [...(this.options.clientCertificateAuthorities ?? []), ...(this.options.requestHeader?.authorities ?? [])];
    return all.length > 0 ? all : undefined;
  }

  async check(req: IncomingMessage, path: string): Promise<AuthDecision> {
    const authenticated = await this.authenticator.authenticate(req);
    if ('error' in authenticated) return { allowed: false, code: 401, reason: 'Unauthorized', message: 'Unauthorized' };
    const user = authenticated.user;
    if (isPathAllowed(path, this.options.alwaysAllowPaths)) return { allowed: true, user };
    const authorization = this.options.authorization;
    if (authorization === 'AlwaysAllow') return { allowed: true, user };
    const attributes = this.access.attributes(req, path);
    const forbidden = this.access.forbidden(user, attributes);
    if (!authorization) return { allowed: false, code: 403, reason: 'Forbidden', message: forbidden };
    let decision: { allowed: boolean; reason: string };
    try {
      decision = await this.authorize(authorization, user, attributes);
    } catch (error) {
      return { allowed: false, code: 500, reason: 'InternalError', message: `Internal Server Error: "${path}": ${errorMessage(error)}` };
    }
    if (decision.allowed) return { allowed: true, user };
    return { allowed: false, code: 403, reason: 'Forbidden', message: decision.reason ? `${forbidden}: ${decision.reason}` : forbidden };
  }

  private async authorize(
    authorization: { client: Client; allowedTtlMs: number; deniedTtlMs: number },
    user: UserInfo,
    attributes: AccessAttributes,
  ): Promise<{ allowed: boolean; reason: string }> {
    const spec = { user: user.name, uid: user.uid, groups: user.groups, extra: user.extra, ...attributes };
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
    const authorization = this.options.authorization;
    const reviewer = typeof authorization === 'object' ? authorization.client : undefined;
    this.options.tokenReview?.client.close();
    if (reviewer !== this.options.tokenReview?.client) reviewer?.close();
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
  /** The client certificate and front-proxy flags, for a component that has them (the controller manager). */
  clientCaFile?: string;
  requestheaderClientCaFile?: string;
  requestheaderAllowedNames?: readonly string[];
  requestheaderUsernameHeaders?: readonly string[];
  requestheaderGroupHeaders?: readonly string[];
  requestheaderExtraHeadersPrefix?: readonly string[];
  /** false (Kubernetes' default): what the flags leave out is read from the API server's published settings. */
  authenticationSkipLookup?: boolean;
  authenticationTolerateLookupFailure?: boolean;
  /** What a request is authorized as (an extension API server's resources); default: its path as a non-resource URL. */
  access?: AccessDescriber;
}

/** What the API server published: PEM bundles and header lists, as Kubernetes' keys hold them. */
interface PublishedAuthentication {
  clientCa?: string;
  requestHeaderCa?: string;
  allowedNames?: string[];
  usernameHeaders?: string[];
  groupHeaders?: string[];
  extraHeadersPrefix?: string[];
}

function jsonList(data: Record<string, string>, key: string): string[] | undefined {
  const raw = data[key];
  if (raw === undefined || raw === '') return undefined;
  const value = JSON.parse(raw) as unknown;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new Error(`key ${key} is not a JSON list of strings`);
  return value;
}

/** The ConfigMap the API server keeps (`svc-system/extension-apiserver-authentication`); undefined when there is none. */
async function lookUpPublishedAuthentication(client: Client): Promise<PublishedAuthentication | undefined> {
  let data: Record<string, string>;
  try {
    data = (await client.configMaps.get(AUTHENTICATION_INFO_CONFIGMAP, { namespace: AUTHENTICATION_INFO_NAMESPACE })).data ?? {};
  } catch (error) {
    // As in Kubernetes: no ConfigMap means a server that delegates nothing, not a failure.
    if (isNotFound(error)) return undefined;
    throw error;
  }
  return {
    clientCa: data[KEYS.clientCa] || undefined,
    requestHeaderCa: data[KEYS.requestHeaderClientCa] || undefined,
    allowedNames: jsonList(data, KEYS.requestHeaderAllowedNames),
    usernameHeaders: jsonList(data, KEYS.requestHeaderUsernameHeaders),
    groupHeaders: jsonList(data, KEYS.requestHeaderGroupHeaders),
    extraHeadersPrefix: jsonList(data, KEYS.requestHeaderExtraHeadersPrefix),
  };
}

async function readBundle(file: string, flag: string): Promise<X509Certificate[]> {
  try {
    return parseCertificateBundle(await readFile(file, 'utf8'), file);
  } catch (error) {
    throw new Error(`${flag}: ${errorMessage(error)}`);
  }
}

/**
 * The endpoint's authentication and authorization as the flags describe them, the review clients
 * connected through the given files. As Kubernetes' components: with `--authentication-svcconfig`
 * and without `--authentication-skip-lookup`, a client CA or front-proxy CA the flags leave out is
 * read from the ConfigMap the API server publishes; a failed lookup stops the process unless
 * `--authentication-tolerate-lookup-failure`.
 */
export async function delegatedAuthFromFlags(
  o: DelegatedAuthFlags,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<DelegatedAuth> {
  const connect = async (file: string, flag: string) => {
    try {
      return new Client(await clientConfigFromOptions({ svcconfig: file }));
    } catch (error) {
      throw new Error(`${flag}: ${errorMessage(error)}`);
    }
  };
  const tokenClient = o.authenticationSvcconfig ? await connect(o.authenticationSvcconfig, '--authentication-svcconfig') : undefined;
  let clientCas = o.clientCaFile ? await readBundle(o.clientCaFile, '--client-ca-file') : undefined;
  let requestHeaderCas = o.requestheaderClientCaFile ? await readBundle(o.requestheaderClientCaFile, '--requestheader-client-ca-file') : undefined;
  let headers = {
    allowedNames: o.requestheaderAllowedNames ?? [],
    usernameHeaders: o.requestheaderUsernameHeaders ?? ['x-remote-user'],
    groupHeaders: o.requestheaderGroupHeaders ?? ['x-remote-group'],
    extraHeadersPrefix: o.requestheaderExtraHeadersPrefix ?? ['x-remote-extra-'],
  };
  if (tokenClient && !o.authenticationSkipLookup && (!clientCas || !requestHeaderCas)) {
    const source = `configmap ${AUTHENTICATION_INFO_NAMESPACE}/${AUTHENTICATION_INFO_CONFIGMAP}`;
    try {
      const published = await lookUpPublishedAuthentication(tokenClient);
      if (published?.clientCa && !clientCas) clientCas = parseCertificateBundle(published.clientCa, `${source} key client-ca-file`);
      if (published?.requestHeaderCa && !requestHeaderCas) {
        requestHeaderCas = parseCertificateBundle(published.requestHeaderCa, `${source} key requestheader-client-ca-file`);
        headers = {
          allowedNames: published.allowedNames ?? [],
          usernameHeaders: published.usernameHeaders ?? [],
          groupHeaders: published.groupHeaders ?? [],
          extraHeadersPrefix: published.extraHeadersPrefix ?? [],
        };
      }
    } catch (error) {
      const message = `unable to load ${source} (set --authentication-skip-lookup, or --authentication-tolerate-lookup-failure to go on without it): ${errorMessage(error)}`;
      if (!o.authenticationTolerateLookupFailure) throw new Error(message);
      log(`warning: ${message}; client certificates and front-proxy headers are not read`);
    }
  }
  return new DelegatedAuth({
    access: o.access,
    alwaysAllowPaths: o.authorizationAlwaysAllowPaths,
    clientCertificateAuthorities: clientCas,
    requestHeader: requestHeaderCas ? { authorities: requestHeaderCas, ...headers } : undefined,
    tokenReview: tokenClient ? { client: tokenClient, cacheTtlMs: o.authenticationTokenWebhookCacheTtl ?? 10_000 } : undefined,
    authorization: o.authorizationSvcconfig
      ? {
          client: await connect(o.authorizationSvcconfig, '--authorization-svcconfig'),
          allowedTtlMs: o.authorizationWebhookCacheAuthorizedTtl ?? 10_000,
          deniedTtlMs: o.authorizationWebhookCacheUnauthorizedTtl ?? 10_000,
        }
      : undefined,
  });
}

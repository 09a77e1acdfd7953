import { readFileSync } from 'node:fs';
import { storedDefinition } from '@svc/api';
import type { X509Certificate } from 'node:crypto';
import type { ResourceRegistries } from '../registry/registries';
import type { ResourceRegistry } from '../registry/resource-registry';
import { RequestAuthenticator, type Authenticator } from '@svc/machinery';
import { alwaysAllow, alwaysDeny, privilegedGroups, UnionAuthorizer, type Authorizer } from './authorizer';
import { RbacAuthorizer, type PolicyObjects, type PolicySource } from './rbac/rbac-authorizer';
import { NodeAuthorizer } from './node/node-authorizer';
import { NodeGraph } from './node/node-graph';
import { NodeGraphPopulator } from './node/node-graph-populator';
import { WebhookAuthorizer, type WebhookAuthorizerOptions, type WebhookModeOptions } from './webhook/webhook-authorizer';
import type { TokenAuthenticator } from './token-authenticator';
import { BearerTokenAuthenticator } from './token-authenticator';
import { WebSocketProtocolAuthenticator } from './websocket-protocol-authenticator';
import { TokenFileAuthenticator } from './token-file-authenticator';
import { BOOTSTRAP_TOKEN_NAMESPACE, BootstrapTokenAuthenticator, type BootstrapSecretLookup } from './bootstrap-tokens';
import { ServiceAccountTokens, type ObjectUidLookup, type ServiceAccountTokenOptions } from './service-account-tokens';
import { isStatusError } from '@svc/machinery';
import { parseCertificateBundle, X509Authenticator } from '@svc/machinery';
import { OidcAuthenticator, type OidcOptions } from './oidc-authenticator';
import { RequestHeaderAuthenticator, type RequestHeaderOptions } from '@svc/machinery';
import { TokenWebhookAuthenticator, type TokenWebhookOptions } from './token-webhook-authenticator';
import type { ClusterAuthenticationInfo } from './authentication-info/cluster-authentication-info';

/** The authorization modes this server implements (spec 2's `--authorization-mode` values). */
export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'RBAC' | 'Node' | 'Webhook' | 'ABAC';

/** Who may call: the authentication flags of document 2. */
export interface AuthenticationOptions {
  /** `--client-ca-file`: client certificates it issued authenticate (CN user, O groups). */
  clientCaFile?: string;
  /** `--token-auth-file`. */
  tokenAuthFile?: string;
  /** `--enable-bootstrap-token-auth`: bootstrap token Secrets of the system namespace authenticate (TLS bootstrap of nodes). */
  bootstrapTokens?: boolean;
  /** `--anonymous-auth` (default true). */
  anonymous?: boolean;
  /** `--requestheader-*`: a front proxy with a client certificate of this CA asserts the user in headers. */
  requestHeader?: RequestHeaderOptions;
  /** `--oidc-*`: ID tokens of an OpenID Connect issuer. */
  oidc?: OidcOptions;
  /** `--authentication-token-webhook-*`: tokens no other authenticator accepts go to the webhook in a TokenReview. */
  tokenWebhook?: TokenWebhookOptions;
  /** More token authenticators, asked after the static file, service account tokens and OIDC, before the webhook. */
  tokenAuthenticators?: readonly TokenAuthenticator[];
  /**
   * The server's own client CA (`client-ca.crt` in the cert directory, made on first start) is
   * trusted for client certificates, and the written connection file carries an administrator's
   * certificate from it (user `svc-admin` in `system:masters`).
   */
  selfIssuedClients?: boolean;
  /** Service account tokens (the `--service-account-*` flags and `--api-audiences`): TokenRequest, their authentication, the issuer's discovery documents. */
  serviceAccounts?: ServiceAccountTokenOptions;
}

/** What callers may do: `--authorization-mode` in order (default AlwaysAllow). */
export interface AuthorizationOptions {
  modes?: readonly AuthorizationMode[];
  /** The Webhook mode's settings (`--authorization-webhook-*`); required when Webhook is a mode. */
  webhook?: WebhookModeOptions;
}

/** Authentication and authorization as built from the options, for the handler chain and the review APIs. */
export interface Security {
  authenticator: RequestAuthenticator;
  authorizer: UnionAuthorizer;
  tokenAuthenticators: readonly TokenAuthenticator[];
  /** PEM of the client CA bundles (client certificates and the front proxy's) the TLS server asks clients for certificates against. */
  clientCaPem?: string;
  clientCas: readonly X509Certificate[];
  /** What the server publishes of its client authentication (the `extension-apiserver-authentication` ConfigMap). */
  authenticationInfo: ClusterAuthenticationInfo;
  /** The RBAC authorizer, when RBAC is a mode (bootstrap policy, escalation checks). */
  rbac?: RbacAuthorizer;
  /** The service account token issuer, when configured. */
  serviceAccountTokens?: ServiceAccountTokens;
  /** The pods-to-objects graph the Node mode asks, when Node is a mode: started and stopped with the server. */
  nodeGraph?: NodeGraphPopulator;
}

/**
 * Authentication and authorization from the options. `ownClientCaPem` is the server's own client CA
 * (see AuthenticationOptions.selfIssuedClients), trusted beside `--client-ca-file`.
 */
export function buildSecurity(
  authentication: AuthenticationOptions,
  authorization: AuthorizationOptions,
  registries: ResourceRegistries,
  ownClientCaPem?: string,
  /** The Webhook mode's settings with its connection file read (see loadWebhookAuthorizerOptions). */
  webhook?: WebhookAuthorizerOptions,
): Security {
  // Kubernetes' order: front proxy, client certificates, then bearer tokens (file, service accounts, OIDC, webhook).
  const certificates = certificateAuthentication(authentication, ownClientCaPem);
  const authenticators = [...certificates.authenticators];
  const { tokenAuthenticators, serviceAccountTokens } = tokenAuthentication(authentication, registries);
  // As in Kubernetes, a bearer token is only read when some token authenticator is configured.
  if (tokenAuthenticators.length > 0) {
    authenticators.push(new BearerTokenAuthenticator(tokenAuthenticators));
    // Browsers cannot set headers on a WebSocket: watches and exec carry the token as a subprotocol.
    authenticators.push(new WebSocketProtocolAuthenticator(tokenAuthenticators));
  }
  const { authorizers, rbac, nodeGraph } = authorizationModes(authorization.modes ?? ['AlwaysAllow'], registries, webhook);
  return {
    authenticator: new RequestAuthenticator(authenticators, authentication.anonymous ?? true),
    authorizer: new UnionAuthorizer(authorizers),
    tokenAuthenticators,
    clientCaPem: certificates.clientCaPem,
    clientCas: certificates.clientCas,
    authenticationInfo: certificates.authenticationInfo,
    rbac,
    serviceAccountTokens,
    nodeGraph,
  };
}

/** The front proxy's and the client certificates' authenticators, the CAs the TLS handshake asks for, and what the cluster is told of them. */
function certificateAuthentication(authentication: AuthenticationOptions, ownClientCaPem: string | undefined) {
  const authenticators: Authenticator[] = [];
  const bundles: string[] = [];
  if (authentication.clientCaFile) bundles.push(readCaFile('--client-ca-file', authentication.clientCaFile));
  if (ownClientCaPem) bundles.push(ownClientCaPem.trim());
  const pemOf = (list: string[]) => (list.length > 0 ? `${list.join('\n')}\n` : undefined);
  const clientCas: X509Certificate[] = bundles.length > 0 ? parseCertificateBundle(pemOf(bundles)!, 'client CA bundle') : [];
  const tlsBundles = [...bundles];
  const authenticationInfo: ClusterAuthenticationInfo = { clientCaPem: pemOf(bundles) };
  if (authentication.requestHeader) {
    const { clientCaFile, ...headers } = authentication.requestHeader;
    const pem = readCaFile('--requestheader-client-ca-file', clientCaFile);
    tlsBundles.push(pem);
    authenticationInfo.requestHeader = {
      caPem: pemOf([pem])!,
      allowedNames: [...(headers.allowedNames ?? [])],
      usernameHeaders: [...headers.usernameHeaders],
      groupHeaders: [...(headers.groupHeaders ?? [])],
      extraHeadersPrefix: [...(headers.extraHeadersPrefix ?? [])],
    };
    authenticators.push(new RequestHeaderAuthenticator(parseCertificateBundle(pem, clientCaFile), headers));
  }
  if (clientCas.length > 0) authenticators.push(new X509Authenticator(clientCas));
  return { authenticators, clientCas, clientCaPem: pemOf(tlsBundles), authenticationInfo };
}

/** The bearer token authenticators in Kubernetes' order (file, service accounts, OIDC, given ones, webhook). */
function tokenAuthentication(authentication: AuthenticationOptions, registries: ResourceRegistries) {
  const tokenAuthenticators: TokenAuthenticator[] = [];
  if (authentication.tokenAuthFile) tokenAuthenticators.push(TokenFileAuthenticator.fromFile(authentication.tokenAuthFile));
  if (authentication.bootstrapTokens) tokenAuthenticators.push(new BootstrapTokenAuthenticator(registrySecretLookup(registries)));
  const serviceAccountTokens = authentication.serviceAccounts
    ? new ServiceAccountTokens(authentication.serviceAccounts, registryUidLookup(registries))
    : undefined;
  if (serviceAccountTokens) tokenAuthenticators.push(serviceAccountTokens);
  if (authentication.oidc) {
    const ca = authentication.oidc.caFile ? readCaFile('--oidc-ca-file', authentication.oidc.caFile) : undefined;
    tokenAuthenticators.push(OidcAuthenticator.create(authentication.oidc, ca, serviceAccountTokens?.audiences));
  }
  tokenAuthenticators.push(...(authentication.tokenAuthenticators ?? []));
  if (authentication.tokenWebhook) tokenAuthenticators.push(new TokenWebhookAuthenticator(authentication.tokenWebhook, serviceAccountTokens?.audiences));
  return { tokenAuthenticators, serviceAccountTokens };
}

/** The authorizers of `--authorization-mode`, in its order, with the privileged groups first unless every request is allowed. */
function authorizationModes(modes: readonly AuthorizationMode[], registries: ResourceRegistries, webhook: WebhookAuthorizerOptions | undefined) {
  const authorizers: Authorizer[] = [];
  let rbac: RbacAuthorizer | undefined;
  let nodeGraph: NodeGraphPopulator | undefined;
  if (!(modes.length === 1 && modes[0] === 'AlwaysAllow')) authorizers.push(privilegedGroups);
  for (const mode of modes) {
    switch (mode) {
      case 'AlwaysAllow':
        authorizers.push(alwaysAllow);
        break;
      case 'AlwaysDeny':
        authorizers.push(alwaysDeny);
        break;
      case 'RBAC':
        rbac = new RbacAuthorizer(registryPolicySource(registries));
        authorizers.push(rbac);
        break;
      case 'Node': {
        const graph = new NodeGraph();
        const populator = new NodeGraphPopulator(registries, graph);
        nodeGraph = populator;
        authorizers.push(new NodeAuthorizer(graph, () => populator.hasSynced));
        break;
      }
      case 'Webhook':
        if (webhook === undefined) throw new Error('--authorization-mode Webhook requires --authorization-webhook-config-file');
        authorizers.push(new WebhookAuthorizer(webhook));
        break;
      default:
        throw new Error(`--authorization-mode ${mode} is not supported by this server`);
    }
  }
  return { authorizers, rbac, nodeGraph };
}

/** A PEM CA bundle the flag names, checked to hold certificates. */
function readCaFile(flag: string, path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${flag}: cannot read ${path}: ${(error as Error).message}`);
  }
  parseCertificateBundle(pem, `${flag} ${path}`);
  return pem.trim();
}

/** The uid of a live object, read through its registry (the watch cache). */
function registryUidLookup(registries: ResourceRegistries): ObjectUidLookup {
  return async (resource, namespace, name) => {
    const registry = { serviceaccounts: registries.serviceAccounts, pods: registries.pods, secrets: registries.secrets }[resource];
    if (registry === undefined) return undefined;
    try {
      return (await registry.get(namespace, name)).metadata?.uid;
    } catch (error) {
      if (isStatusError(error) && error.code === 404) return undefined;
      throw error;
    }
  };
}

/** A Secret of the system namespace, read through its registry (the watch cache). */
function registrySecretLookup(registries: ResourceRegistries): BootstrapSecretLookup {
  return async (name) => {
    try {
      const secrets = registries.secrets;
      return secrets === undefined ? undefined : await secrets.get(BOOTSTRAP_TOKEN_NAMESPACE, name);
    } catch (error) {
      if (isStatusError(error) && error.code === 404) return undefined;
      throw error;
    }
  };
}

const RBAC_RESOURCES = { roles: 'roles', clusterRoles: 'clusterroles', roleBindings: 'rolebindings', clusterRoleBindings: 'clusterrolebindings' } as const;
const RBAC_GROUP = 'rbac.authorization.k8s.io';
// Without a watch cache the objects are read again at most this often.
const UNCACHED_REFRESH_MS = 1_000;

/** The RBAC objects read through their registries, their watch caches' revisions as the version. */
function registryPolicySource(registries: ResourceRegistries): PolicySource {
  const items = async (registry: ResourceRegistry | undefined, resource: string) => {
    if (registry === undefined) throw new Error(`RBAC needs ${resource}.${RBAC_GROUP} to be served`);
    return (await registry.list('')).items;
  };
  // Asked on every request: once all four caches exist they are kept rather than looked up again.
  let found: ReadonlyArray<ReturnType<typeof registries.cachers.cacherFor>> | undefined;
  const cachers = () => {
    if (found !== undefined) return found;
    const all = Object.values(RBAC_RESOURCES).map((resource) => {
      const definition = registries.scheme.byResource({ group: RBAC_GROUP, version: 'v1', resource });
      if (definition === undefined) return undefined;
      const stored = storedDefinition(definition);
      return registries.cachers.cacherFor(stored.group, stored.resource, true);
    });
    if (all.every((c) => c !== undefined)) found = all;
    return all;
  };
  return {
    version: () => {
      const all = cachers();
      if (all.some((c) => c === undefined || !c.ready)) return `t${Math.floor(Date.now() / UNCACHED_REFRESH_MS)}`;
      return all.map((c) => c!.revision()).join('/');
    },
    read: async (): Promise<PolicyObjects> => {
      const [roles, clusterRoles, roleBindings, clusterRoleBindings] = await Promise.all([
        items(registries.roles, RBAC_RESOURCES.roles),
        items(registries.clusterRoles, RBAC_RESOURCES.clusterRoles),
        items(registries.roleBindings, RBAC_RESOURCES.roleBindings),
        items(registries.clusterRoleBindings, RBAC_RESOURCES.clusterRoleBindings),
      ]);
      return { roles, clusterRoles, roleBindings, clusterRoleBindings };
    },
  };
}

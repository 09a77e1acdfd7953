import type { IncomingMessage } from 'node:http';
import type { Client } from '@svc/client';
import { parseCertificateBundle } from '@svc/machinery';
import { parseDuration } from '@svc/options';
import { DelegatedAuth, type AccessAttributes, type AccessDescriber } from '@svc/delegated-auth';
import type { NodeAgentConfiguration } from '../config/node-agent-configuration';

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

/**
 * What a request to the node agent is authorized as, as the kubelet does: its method's verb on the
 * node's `nodes/<subresource>`, and the kubelet's wording of a refusal.
 */
export function nodeAccess(nodeName: string): AccessDescriber {
  return {
    attributes: (req: IncomingMessage, path: string): AccessAttributes => ({
      resourceAttributes: { verb: verbOf(req.method), resource: 'nodes', subresource: nodeSubresource(path), name: nodeName },
    }),
    forbidden: (user, attributes) => {
      const r = 'resourceAttributes' in attributes ? attributes.resourceAttributes : undefined;
      return `Forbidden (user=${user.name}, verb=${r?.verb}, resource=nodes, subresource=${r?.subresource})`;
    },
  };
}

/**
 * How the agent's secured server authenticates and authorizes a request (spec 3, as the kubelet's
 * `authentication` and `authorization` sections say): client certificates of `clientCAFile`, bearer
 * tokens through TokenReview (cached `cacheTTL`), anonymous requests when allowed; then
 * SubjectAccessReview (allowed and denied answers cached apart), or everything with AlwaysAllow.
 */
export function nodeAgentAuth(client: Client, config: NodeAgentConfiguration, nodeName: string, clientCA: string | undefined): DelegatedAuth {
  const authn = config.authentication ?? {};
  const authz = config.authorization ?? {};
  return new DelegatedAuth({
    clientCertificateAuthorities: clientCA !== undefined ? parseCertificateBundle(clientCA, authn.x509?.clientCAFile ?? '') : undefined,
    tokenReview: (authn.webhook?.enabled ?? true) ? { client, cacheTtlMs: parseDuration(authn.webhook?.cacheTTL ?? '2m') } : undefined,
    anonymous: authn.anonymous?.enabled ?? false,
    authorization:
      (authz.mode ?? 'Webhook') === 'AlwaysAllow'
        ? 'AlwaysAllow'
        : {
            client,
            allowedTtlMs: parseDuration(authz.webhook?.cacheAuthorizedTTL ?? '5m'),
            deniedTtlMs: parseDuration(authz.webhook?.cacheUnauthorizedTTL ?? '30s'),
          },
    alwaysAllowPaths: [],
    access: nodeAccess(nodeName),
  });
}

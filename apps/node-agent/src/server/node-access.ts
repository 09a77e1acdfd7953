import type { IncomingMessage } from 'node:http';
import type { AccessAttributes, AccessDescriber } from '@svc/delegated-auth';

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

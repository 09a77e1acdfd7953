import type { IncomingMessage } from 'node:http';
import { nodeAccess, nodeSubresource } from './node-auth';

describe('what a request to the node agent is authorized as', () => {
  it.each([
    ['/stats/summary', 'stats'],
    ['/metrics', 'metrics'],
    ['/metrics/cadvisor', 'metrics'],
    ['/logs/', 'log'],
    ['/spec/', 'spec'],
    ['/checkpoint/ns/pod/c', 'checkpoint'],
    ['/containerLogs/ns/pod/c', 'proxy'],
    ['/exec/ns/pod/c', 'proxy'],
    ['/pods', 'proxy'],
  ])('%s is nodes/%s', (path, subresource) => {
    expect(nodeSubresource(path)).toBe(subresource);
  });

  it('takes the verb from the method and names this node, and words a refusal as the kubelet does', () => {
    const access = nodeAccess('node-a');
    const request = (method: string) => ({ method }) as IncomingMessage;
    expect(access.attributes(request('POST'), '/exec/ns/p/c')).toEqual({
      resourceAttributes: { verb: 'create', resource: 'nodes', subresource: 'proxy', name: 'node-a' },
    });
    const verbs = ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD'].map((m) => {
      const attributes = access.attributes(request(m), '/pods');
      return 'resourceAttributes' in attributes ? attributes.resourceAttributes.verb : undefined;
    });
    expect(verbs).toEqual(['get', 'update', 'patch', 'delete', 'get']);
    const attributes = access.attributes(request('GET'), '/metrics');
    expect(access.forbidden({ name: 'alice', groups: [] }, attributes)).toBe('Forbidden (user=alice, verb=get, resource=nodes, subresource=metrics)');
  });
});

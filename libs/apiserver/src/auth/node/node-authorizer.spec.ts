import type { AuthorizationAttributes } from '../authorizer';
import { NodeAuthorizer } from './node-authorizer';
import { NodeGraph } from './node-graph';

const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

function attrs(overrides: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return {
    user: n1,
    verb: 'get',
    isResourceRequest: true,
    namespace: 'team',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'secrets',
    subresource: '',
    name: '',
    path: '',
    ...overrides,
  };
}

function pod(name: string, node: string, spec: Record<string, unknown> = {}) {
  return { metadata: { namespace: 'team', name }, spec: { nodeName: node, containers: [], ...spec } };
}

describe('NodeGraph', () => {
  it("follows a pod's references to Secrets, ConfigMaps, claims, their volumes and its account", () => {
    const graph = new NodeGraph();
    graph.setPod(
      pod('web', 'n1', {
        serviceAccountName: 'robot',
        imagePullSecrets: [{ name: 'pull' }],
        volumes: [
          { name: 'a', secret: { secretName: 'vol-secret' } },
          { name: 'b', configMap: { name: 'vol-config' } },
          { name: 'c', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'd', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-config' } }] } },
          { name: 'e', ephemeral: { volumeClaimTemplate: {} } },
        ],
        containers: [
          {
            name: 'c',
            env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }],
            envFrom: [{ configMapRef: { name: 'env-config' } }],
          },
        ],
      }),
    );
    graph.setClaim({ metadata: { namespace: 'team', name: 'data' }, spec: { volumeName: 'pv-1' } });
    for (const name of ['pull', 'vol-secret', 'proj-secret', 'env-secret']) expect(graph.reaches('n1', 'secrets', 'team', name)).toBe(true);
    for (const name of ['vol-config', 'proj-config', 'env-config']) expect(graph.reaches('n1', 'configmaps', 'team', name)).toBe(true);
    expect(graph.reaches('n1', 'persistentvolumeclaims', 'team', 'data')).toBe(true);
    expect(graph.reaches('n1', 'persistentvolumeclaims', 'team', 'web-e')).toBe(true);
    expect(graph.reaches('n1', 'persistentvolumes', '', 'pv-1')).toBe(true);
    expect(graph.reaches('n1', 'serviceaccounts', 'team', 'robot')).toBe(true);
    expect(graph.reaches('n2', 'secrets', 'team', 'pull')).toBe(false);
    expect(graph.reaches('n1', 'secrets', 'other', 'pull')).toBe(false);
  });

  it('forgets edges when a pod moves, is deleted, or the last of two pods goes', () => {
    const graph = new NodeGraph();
    const volume = { volumes: [{ name: 'a', secret: { secretName: 's' } }] };
    graph.setPod(pod('a', 'n1', volume));
    graph.setPod(pod('b', 'n1', volume));
    graph.deletePod(pod('a', 'n1'));
    expect(graph.reaches('n1', 'secrets', 'team', 's')).toBe(true);
    graph.setPod(pod('b', 'n2', volume));
    expect(graph.reaches('n1', 'secrets', 'team', 's')).toBe(false);
    expect(graph.reaches('n2', 'secrets', 'team', 's')).toBe(true);
    graph.setPod(pod('b', '', volume));
    expect(graph.reaches('n2', 'secrets', 'team', 's')).toBe(false);
    expect(graph.boundPods).toBe(0);
    graph.setPod(pod('c', 'n3'));
    expect(graph.reaches('n3', 'serviceaccounts', 'team', 'default')).toBe(true);
    graph.resetPods([]);
    expect(graph.reaches('n3', 'serviceaccounts', 'team', 'default')).toBe(false);
  });

  it('reads malformed pods without throwing', () => {
    const graph = new NodeGraph();
    graph.setPod({ metadata: { name: 'x' }, spec: { nodeName: 'n1', volumes: 'none', containers: [null, { env: 3 }] } });
    graph.setPod(null);
    graph.setPod({ spec: { nodeName: 'n1' } });
    expect(graph.boundPods).toBe(1);
  });
});

describe('NodeAuthorizer', () => {
  const graph = new NodeGraph();
  graph.setPod(pod('web', 'n1', { volumes: [{ name: 'a', secret: { secretName: 'mine' } }], serviceAccountName: 'robot' }));
  graph.setPod(pod('db', 'n2', { volumes: [{ name: 'a', secret: { secretName: 'theirs' } }] }));
  const authorizer = new NodeAuthorizer(graph);

  it("allows reading its own pods' Secrets, not another node's", () => {
    expect(authorizer.authorize(attrs({ name: 'mine' })).decision).toBe('allow');
    expect(authorizer.authorize(attrs({ name: 'mine', verb: 'watch' })).decision).toBe('allow');
    expect(authorizer.authorize(attrs({ name: 'theirs' }))).toEqual({
      decision: 'noOpinion',
      reason: "no relationship found between node 'n1' and this object",
    });
    expect(authorizer.authorize(attrs({ verb: 'list' })).decision).toBe('noOpinion');
    expect(authorizer.authorize(attrs({ name: 'mine', verb: 'update' })).decision).toBe('noOpinion');
  });

  it('has no opinion on callers that are not nodes', () => {
    expect(authorizer.authorize(attrs({ name: 'mine', user: { name: 'system:node:n1', groups: ['devs'] } })).decision).toBe('noOpinion');
    expect(authorizer.authorize(attrs({ name: 'mine', user: { name: 'alice', groups: ['system:nodes'] } })).decision).toBe('noOpinion');
  });

  it('lets a node request tokens only for its pods’ service accounts', () => {
    expect(authorizer.authorize(attrs({ resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'robot' })).decision).toBe('allow');
    expect(authorizer.authorize(attrs({ resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'admin' })).decision).toBe('noOpinion');
  });

  it('reaches its own Node and Lease only', () => {
    const node = (verb: string, name: string, subresource = '') =>
      authorizer.authorize(attrs({ resource: 'nodes', namespace: '', verb, name, subresource })).decision;
    expect(node('get', 'n1')).toBe('allow');
    expect(node('update', 'n1', 'status')).toBe('allow');
    expect(node('patch', 'n1')).toBe('allow');
    expect(node('get', 'n2')).toBe('noOpinion');
    expect(node('update', 'n2', 'status')).toBe('noOpinion');
    expect(node('create', 'n1')).toBe('allow');
    const lease = (verb: string, namespace: string, name: string) =>
      authorizer.authorize(attrs({ apiGroup: 'coordination.k8s.io', resource: 'leases', verb, namespace, name })).decision;
    expect(lease('update', 'svc-node-lease', 'n1')).toBe('allow');
    expect(lease('update', 'svc-node-lease', 'n2')).toBe('noOpinion');
    expect(lease('get', 'default', 'n1')).toBe('noOpinion');
  });

  it('grants the node role for pods, their status and events; nothing else', () => {
    expect(authorizer.authorize(attrs({ resource: 'pods', verb: 'list' })).decision).toBe('allow');
    expect(authorizer.authorize(attrs({ resource: 'pods', subresource: 'status', verb: 'patch', name: 'web' })).decision).toBe('allow');
    expect(authorizer.authorize(attrs({ resource: 'events', verb: 'create' })).decision).toBe('allow');
    expect(authorizer.authorize(attrs({ resource: 'deployments', apiGroup: 'apps', verb: 'list' })).decision).toBe('noOpinion');
    expect(authorizer.authorize(attrs({ resource: 'namespaces', verb: 'delete', namespace: '', name: 'team' })).decision).toBe('noOpinion');
  });

  it("updates the status of its pods' claims, reads the VolumeAttachments naming it, and writes only its own CSINode", () => {
    const storage = new NodeGraph();
    storage.setPod(pod('web', 'n1', { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] }));
    storage.setClaim({ metadata: { namespace: 'team', name: 'data' }, spec: { volumeName: 'pv-1' } });
    storage.setVolumeAttachment({ metadata: { name: 'va-1' }, spec: { nodeName: 'n1' } });
    storage.setVolumeAttachment({ metadata: { name: 'va-2' }, spec: { nodeName: 'n2' } });
    const nodes = new NodeAuthorizer(storage);
    const decide = (o: Partial<AuthorizationAttributes>) => nodes.authorize(attrs(o)).decision;
    expect(decide({ resource: 'persistentvolumeclaims', name: 'data' })).toBe('allow');
    expect(decide({ resource: 'persistentvolumeclaims', name: 'data', subresource: 'status', verb: 'patch' })).toBe('allow');
    expect(decide({ resource: 'persistentvolumeclaims', name: 'other', subresource: 'status', verb: 'patch' })).toBe('noOpinion');
    expect(decide({ resource: 'persistentvolumeclaims', name: 'data', verb: 'update' })).toBe('noOpinion');
    expect(decide({ resource: 'persistentvolumes', namespace: '', name: 'pv-1' })).toBe('allow');
    const storageGroup = { apiGroup: 'storage.k8s.io', namespace: '' };
    expect(decide({ ...storageGroup, resource: 'volumeattachments', name: 'va-1' })).toBe('allow');
    expect(decide({ ...storageGroup, resource: 'volumeattachments', name: 'va-2' })).toBe('noOpinion');
    storage.deleteVolumeAttachment({ metadata: { name: 'va-1' } });
    expect(decide({ ...storageGroup, resource: 'volumeattachments', name: 'va-1' })).toBe('noOpinion');
    expect(decide({ ...storageGroup, resource: 'csinodes', name: 'n1', verb: 'update' })).toBe('allow');
    expect(decide({ ...storageGroup, resource: 'csinodes', name: '', verb: 'create' })).toBe('allow');
    expect(nodes.authorize(attrs({ ...storageGroup, resource: 'csinodes', name: 'n2', verb: 'get' }))).toEqual({
      decision: 'noOpinion',
      reason: 'can only access CSINode with the same name as the requesting node',
    });
    expect(decide({ ...storageGroup, resource: 'csidrivers', verb: 'list' })).toBe('allow');
  });

  it('has no opinion on graph questions until the graph is synced', () => {
    const early = new NodeAuthorizer(graph, () => false);
    expect(early.authorize(attrs({ name: 'mine' })).decision).toBe('noOpinion');
  });
});

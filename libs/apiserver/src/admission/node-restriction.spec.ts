import { builtinScheme, type ApiObject } from '@svc/api';
import type { AdmissionAttributes } from './admission';
import { nodeRestriction } from './node-restriction';

const scheme = builtinScheme();
const def = (group: string, resource: string) => scheme.byResource({ group, version: 'v1', resource })!;
const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const plugin = nodeRestriction();

async function check(resource: string, overrides: Partial<AdmissionAttributes>, group = ''): Promise<void> {
  const attributes: AdmissionAttributes = {
    operation: 'UPDATE',
    definition: def(group, resource),
    namespace: '',
    name: 'n1',
    subresource: '',
    dryRun: false,
    user: n1,
    ...overrides,
  };
  await plugin.validate!(attributes);
}

const node = (name: string, labels: Record<string, string> = {}, taints: unknown[] = []): ApiObject => ({ metadata: { name, labels }, spec: { taints } });
const pod = (nodeName: string, extra: Record<string, unknown> = {}, annotations: Record<string, string> = {}): ApiObject => ({
  metadata: { name: 'p', namespace: 'team', annotations },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...extra },
});

describe('NodeRestriction', () => {
  it('lets a node update its own Node and refuses another', async () => {
    await expect(check('nodes', { object: node('n1'), oldObject: node('n1') })).resolves.toBeUndefined();
    await expect(check('nodes', { name: 'n2', subresource: 'status', object: node('n2'), oldObject: node('n2') })).rejects.toMatchObject({
      code: 403,
      message: 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    });
    await expect(check('nodes', { operation: 'CREATE', name: '', object: node('n2') })).rejects.toMatchObject({ code: 403 });
    await expect(check('nodes', { operation: 'DELETE', name: 'n2', object: node('n2') })).rejects.toMatchObject({ code: 403 });
  });

  it('refuses restricted labels and taint changes on its own Node', async () => {
    await expect(
      check('nodes', { operation: 'CREATE', name: '', object: node('n1', { 'node-restriction.kubernetes.io/trusted': 'yes' }) }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('is not allowed to set the following labels: node-restriction.kubernetes.io/trusted'),
    });
    await expect(
      check('nodes', { operation: 'CREATE', name: '', object: node('n1', { 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/pool': 'a', team: 'x' }) }),
    ).resolves.toBeUndefined();
    await expect(check('nodes', { object: node('n1', { 'node-role.kubernetes.io/control-plane': '' }), oldObject: node('n1') })).rejects.toMatchObject({
      message: expect.stringContaining('is not allowed to modify labels: node-role.kubernetes.io/control-plane'),
    });
    const taint = { key: 'dedicated', effect: 'NoSchedule' };
    await expect(check('nodes', { object: node('n1', {}, []), oldObject: node('n1', {}, [taint]) })).rejects.toMatchObject({
      message: 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints',
    });
    // Status writes keep the spec; the taints are not its business.
    await expect(check('nodes', { subresource: 'status', object: node('n1', {}, []), oldObject: node('n1', {}, [taint]) })).resolves.toBeUndefined();
  });

  it('lets a node create only mirror pods bound to itself that reference nothing', async () => {
    const mirror = { 'kubernetes.io/config.mirror': 'hash' };
    const create = (object: ApiObject) => check('pods', { operation: 'CREATE', namespace: 'team', name: 'p', object });
    await expect(create(pod('n1', {}, mirror))).resolves.toBeUndefined();
    await expect(create(pod('n1'))).rejects.toMatchObject({ message: expect.stringContaining('can only create mirror pods') });
    await expect(create(pod('n2', {}, mirror))).rejects.toMatchObject({
      message: expect.stringContaining('can only create pods with spec.nodeName set to itself'),
    });
    await expect(create(pod('n1', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }, mirror))).rejects.toMatchObject({
      message: expect.stringContaining('can not create pods that reference secrets'),
    });
    await expect(create(pod('n1', { serviceAccountName: 'robot' }, mirror))).rejects.toMatchObject({ message: expect.stringContaining('service account') });
  });

  it('lets a node update the status of and delete only pods bound to itself', async () => {
    await expect(check('pods', { namespace: 'team', name: 'p', subresource: 'status', object: pod('n1'), oldObject: pod('n1') })).resolves.toBeUndefined();
    await expect(check('pods', { namespace: 'team', name: 'p', subresource: 'status', object: pod('n2'), oldObject: pod('n2') })).rejects.toMatchObject({
      message: 'pods "p" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself',
    });
    await expect(check('pods', { namespace: 'team', name: 'p', object: pod('n1'), oldObject: pod('n1') })).rejects.toMatchObject({ code: 403 });
    await expect(check('pods', { operation: 'DELETE', namespace: 'team', name: 'p', object: pod('n1'), oldObject: pod('n1') })).resolves.toBeUndefined();
    await expect(check('pods', { operation: 'DELETE', namespace: 'team', name: 'p', object: pod('n2'), oldObject: pod('n2') })).rejects.toMatchObject({
      code: 403,
    });
  });

  it('lets a node write only its own Lease in svc-node-lease', async () => {
    const lease = (name: string): ApiObject => ({ metadata: { name, namespace: 'svc-node-lease' } });
    await expect(check('leases', { namespace: 'svc-node-lease', name: 'n1', object: lease('n1') }, 'coordination.k8s.io')).resolves.toBeUndefined();
    await expect(
      check('leases', { operation: 'CREATE', namespace: 'svc-node-lease', name: '', object: lease('n2') }, 'coordination.k8s.io'),
    ).rejects.toMatchObject({
      message: expect.stringContaining('can only access node lease with the same name as the requesting node'),
    });
    await expect(check('leases', { namespace: 'default', name: 'n1', object: lease('n1') }, 'coordination.k8s.io')).rejects.toMatchObject({ code: 403 });
  });

  it("lets a node change only the expansion fields of a claim's status, and write only its own CSINode", async () => {
    const claim = (status: Record<string, unknown>, labels: Record<string, string> = {}): ApiObject => ({
      metadata: { name: 'data', namespace: 'team', labels, resourceVersion: '5' },
      spec: { accessModes: ['ReadWriteOnce'] },
      status: { phase: 'Bound', ...status },
    });
    const status = (object: ApiObject, oldObject: ApiObject) =>
      check('persistentvolumeclaims', { subresource: 'status', namespace: 'team', name: 'data', object, oldObject });
    await expect(status(claim({ capacity: { storage: '2Gi' }, conditions: [] }), claim({ capacity: { storage: '1Gi' } }))).resolves.toBeUndefined();
    await expect(status(claim({ phase: 'Lost' }), claim({}))).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('node "n1" is not allowed to update fields other than status.capacity and status.conditions'),
    });
    await expect(status(claim({}, { stolen: 'yes' }), claim({}))).rejects.toMatchObject({ code: 403 });
    const csiNode = (name: string): ApiObject => ({ metadata: { name }, spec: { drivers: [] } });
    await expect(check('csinodes', { operation: 'CREATE', name: '', object: csiNode('n1') }, 'storage.k8s.io')).resolves.toBeUndefined();
    await expect(check('csinodes', { operation: 'CREATE', name: '', object: csiNode('n2') }, 'storage.k8s.io')).rejects.toMatchObject({
      message: expect.stringContaining('can only access CSINode with the same name as the requesting node'),
    });
    await expect(check('csinodes', { name: 'n2', object: csiNode('n2') }, 'storage.k8s.io')).rejects.toMatchObject({ code: 403 });
  });

  it('leaves other callers alone', async () => {
    const admin = { name: 'svc-admin', groups: ['system:masters'] };
    await expect(
      check('nodes', { name: 'n2', user: admin, object: node('n2', { 'node-restriction.kubernetes.io/x': '' }), oldObject: node('n2') }),
    ).resolves.toBeUndefined();
  });
});

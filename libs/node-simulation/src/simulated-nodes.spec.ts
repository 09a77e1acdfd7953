import type { Pod } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { eventually } from '@svc/runtime/testing';
import { SimulatedNodes } from './simulated-nodes';

let env: TestEnvironment;
let nodes: SimulatedNodes;

beforeAll(async () => {
  env = await startTestEnvironment();
  nodes = await SimulatedNodes.start(
    env.client,
    [
      { name: 'sim-a', labels: { 'topology.kubernetes.io/zone': 'z1' }, capacity: { cpu: '2', memory: '4Gi', pods: '10' } },
      { name: 'sim-b', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
    ],
    { leaseDurationSeconds: 2 },
  );
}, 60_000);

afterAll(async () => {
  await nodes?.stopAll();
  await env?.stop();
});

async function bind(name: string, node: string): Promise<void> {
  await env.client.pods.create({ metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  await env.client.pods.createSubresource(
    name,
    'binding',
    { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { name: node } },
    { namespace: 'default' },
  );
}

describe('SimulatedNodes', () => {
  it('registers Nodes as a node agent does: well-known labels, capacity, conditions, registered taints', async () => {
    const a = await env.client.nodes.get('sim-a');
    expect(a.metadata?.labels).toMatchObject({
      'kubernetes.io/hostname': 'sim-a',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'topology.kubernetes.io/zone': 'z1',
    });
    expect(a.status?.allocatable).toMatchObject({ cpu: '2', memory: '4Gi', pods: '10' });
    expect(a.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    expect(a.status?.addresses?.find((x) => x.type === 'InternalIP')?.address).toMatch(/^172\./);
    const b = await env.client.nodes.get('sim-b');
    // TaintNodesByCondition adds not-ready until a node lifecycle controller sees the node Ready.
    expect(b.spec?.taints).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
    ]);
  });

  it('renews a Lease per node in svc-node-lease, and stops renewing a stopped node', async () => {
    const first = await env.client.leases.get('sim-a', { namespace: 'svc-node-lease' });
    expect(first.spec).toMatchObject({ holderIdentity: 'sim-a', leaseDurationSeconds: 2 });
    expect(first.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name: 'sim-a' });
    await eventually(async () => {
      const later = await env.client.leases.get('sim-a', { namespace: 'svc-node-lease' });
      expect(Date.parse(later.spec!.renewTime!)).toBeGreaterThan(Date.parse(first.spec!.renewTime!));
    }, 5_000);
    nodes.stop('sim-b');
    // A renewal already on its way when the node stopped may still land: the lease settles first.
    const renewTime = async () => (await env.client.leases.get('sim-b', { namespace: 'svc-node-lease' })).spec!.renewTime;
    const stopped = await eventually(async () => {
      const before = await renewTime();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await renewTime()).toBe(before);
      return before;
    }, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await env.client.leases.get('sim-b', { namespace: 'svc-node-lease' })).spec!.renewTime).toBe(stopped);
    await nodes.resume('sim-b');
    expect((await env.client.leases.get('sim-b', { namespace: 'svc-node-lease' })).spec!.renewTime).not.toBe(stopped);
  });

  it('runs the pods bound to it: Running, an IP from its range, Ready; a deleted pod goes at once', async () => {
    await bind('p1', 'sim-a');
    const running = await eventually(async () => {
      const pod = await env.client.pods.get('p1', { namespace: 'default' });
      expect(pod.status?.phase).toBe('Running');
      return pod;
    }, 10_000);
    expect(running.status?.podIP).toMatch(/^10\.\d+\.\d+\.\d+$/);
    expect(running.status?.hostIP).toMatch(/^172\./);
    expect(running.status?.conditions?.map((c) => `${c.type}=${c.status}`).sort()).toEqual([
      'ContainersReady=True',
      'Initialized=True',
      'PodScheduled=True',
      'Ready=True',
    ]);
    await env.client.pods.delete('p1', { namespace: 'default' });
    await eventually(
      async () => expect((await env.client.pods.list({ namespace: 'default' })).items.map((p: Pod) => p.metadata?.name)).not.toContain('p1'),
      10_000,
    );
  });

  it('reports Ready False when asked, and removes a node with its lease', async () => {
    await nodes.setReady('sim-a', false);
    expect((await env.client.nodes.get('sim-a')).status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    await nodes.remove('sim-a');
    await expect(env.client.nodes.get('sim-a')).rejects.toMatchObject({ status: { code: 404 } });
    await expect(env.client.leases.get('sim-a', { namespace: 'svc-node-lease' })).rejects.toMatchObject({ status: { code: 404 } });
  });
});

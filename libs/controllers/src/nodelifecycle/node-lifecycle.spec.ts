import type { Node, Pod, Toleration } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { isNotFound } from '@svc/machinery';
import { SimulatedNodes } from '@svc/node-simulation';
import { eventually } from '@svc/runtime/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { nodeLifecycleController } from './index';
import { computeZoneState } from './node-health-monitor';
import { swappedTaints } from './swap-taints';

const FAST = ['--node-monitor-period=300ms', '--node-monitor-grace-period=2s', '--node-startup-grace-period=2s'];

function taintsOf(node: Node): string[] {
  return (node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
}

describe('node lifecycle with simulated nodes', () => {
  let env: TestEnvironment;
  let nodes: SimulatedNodes;
  let controllers: RunningControllers;

  beforeAll(async () => {
    env = await startTestEnvironment();
    nodes = await SimulatedNodes.start(env.client, [{ name: 'a' }, { name: 'b' }, { name: 'c' }], { leaseDurationSeconds: 1 });
    controllers = await startControllers(env, [nodeLifecycleController], FAST);
  }, 60_000);

  afterAll(async () => {
    await controllers?.stop();
    await nodes?.stopAll();
    await env?.stop();
  });

  async function bound(name: string, node: string, tolerations?: Toleration[]): Promise<void> {
    await env.client.pods.create({ metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }], tolerations } });
    await env.client.pods.createSubresource(
      name,
      'binding',
      { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { name: node } },
      { namespace: 'default' },
    );
  }

  const pod = (name: string): Promise<Pod> => env.client.pods.get(name, { namespace: 'default' });
  // Marked for deletion, or already gone: the simulated node finishes a deletion as soon as it sees it.
  const evicted = async (name: string): Promise<boolean> =>
    pod(name).then(
      (p) => p.metadata?.deletionTimestamp !== undefined,
      (error: unknown) => (isNotFound(error) ? true : Promise.reject(error instanceof Error ? error : new Error(String(error)))),
    );

  it('lifts the not-ready taint of a new node once it reports Ready', async () => {
    await eventually(async () => {
      for (const name of ['a', 'b', 'c']) expect(taintsOf(await env.client.nodes.get(name))).toEqual([]);
    }, 10_000);
  });

  it('marks a silent node Unknown, taints it unreachable, and evicts its pods as their tolerations say', async () => {
    await bound('impatient', 'b', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 }]);
    await bound('brief', 'b', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 3 }]);
    await bound('forever', 'b', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]);
    await eventually(async () => expect((await pod('brief')).status?.phase).toBe('Running'), 10_000);

    nodes.stop('b');
    const tainted = await eventually(async () => {
      const node = await env.client.nodes.get('b');
      expect(node.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
      });
      expect(taintsOf(node)).toEqual(['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
      return node;
    }, 15_000);
    const noExecute = tainted.spec?.taints?.find((t) => t.effect === 'NoExecute');
    expect(noExecute?.timeAdded).toMatch(/Z$/);

    await eventually(async () => {
      const evicted = await pod('impatient');
      expect(evicted.metadata?.deletionTimestamp).toBeDefined();
      expect(evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByTaintManager' });
    }, 10_000);
    expect((await pod('brief')).metadata?.deletionTimestamp).toBeUndefined();
    expect((await pod('brief')).status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    await eventually(async () => expect((await pod('brief')).metadata?.deletionTimestamp).toBeDefined(), 10_000);
    expect((await pod('forever')).metadata?.deletionTimestamp).toBeUndefined();
    const events = (await env.client.events.list({ namespace: 'default' })).items;
    expect(events.some((e) => e.reason === 'TaintManagerEviction' && e.message === 'Marking for deletion Pod default/impatient')).toBe(true);
  });

  it('evicts at once the pods that do not tolerate a NoExecute taint, and keeps those that do', async () => {
    await bound('guest', 'a');
    await bound('owner', 'a', [{ key: 'dedicated', operator: 'Equal', value: 'x', effect: 'NoExecute' }]);
    await env.client.nodes.patch('a', { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] } });
    try {
      await eventually(async () => expect(await evicted('guest')).toBe(true), 10_000);
      expect((await pod('owner')).metadata?.deletionTimestamp).toBeUndefined();
    } finally {
      await env.client.nodes.patch('a', { spec: { taints: [] } });
    }
  });

  it('takes the taints off a node that comes back', async () => {
    await nodes.resume('b');
    await eventually(async () => {
      const node = await env.client.nodes.get('b');
      expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(taintsOf(node)).toEqual([]);
    }, 15_000);
  });

  it('taints a node reporting Ready False not-ready, NoSchedule and NoExecute', async () => {
    await nodes.setReady('c', false);
    await eventually(
      async () =>
        expect(taintsOf(await env.client.nodes.get('c'))).toEqual(['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/not-ready:NoSchedule']),
      15_000,
    );
    await nodes.setReady('c', true);
    await eventually(async () => expect(taintsOf(await env.client.nodes.get('c'))).toEqual([]), 15_000);
  });

  it('follows a cordon with the unschedulable taint', async () => {
    await env.client.nodes.patch('a', { spec: { unschedulable: true } });
    await eventually(async () => expect(taintsOf(await env.client.nodes.get('a'))).toEqual(['node.kubernetes.io/unschedulable:NoSchedule']), 10_000);
    await env.client.nodes.patch('a', { spec: { unschedulable: false } });
    await eventually(async () => expect(taintsOf(await env.client.nodes.get('a'))).toEqual([]), 10_000);
  });
});

describe('node lifecycle when every node is down', () => {
  it('taints no node for eviction (master disruption mode)', async () => {
    const env = await startTestEnvironment();
    const nodes = await SimulatedNodes.start(env.client, [{ name: 'x' }, { name: 'y' }], { leaseDurationSeconds: 1 });
    const controllers = await startControllers(env, [nodeLifecycleController], FAST);
    try {
      await eventually(async () => expect(taintsOf(await env.client.nodes.get('x'))).toEqual([]), 10_000);
      nodes.stop('x');
      nodes.stop('y');
      await eventually(async () => {
        for (const name of ['x', 'y']) expect((await env.client.nodes.get(name)).status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('Unknown');
      }, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      for (const name of ['x', 'y']) expect(taintsOf(await env.client.nodes.get(name))).not.toContain('node.kubernetes.io/unreachable:NoExecute');
    } finally {
      await controllers.stop();
      await nodes.stopAll();
      await env.stop();
    }
  }, 60_000);
});

describe('node lifecycle rules', () => {
  it("computes a zone's state as Kubernetes does", () => {
    const ready = { type: 'Ready', status: 'True' as const };
    const down = { type: 'Ready', status: 'Unknown' as const };
    expect(computeZoneState([ready, ready, down], 0.55)).toEqual({ notReady: 1, state: 'Normal' });
    expect(computeZoneState([down, down], 0.55)).toEqual({ notReady: 2, state: 'FullDisruption' });
    expect(computeZoneState([ready, down, down], 0.55)).toEqual({ notReady: 2, state: 'Normal' });
    expect(computeZoneState([ready, ready, down, down, down], 0.55)).toEqual({ notReady: 3, state: 'PartialDisruption' });
    expect(computeZoneState([ready, ready, ready, down, down, down, undefined], 0.55)).toEqual({ notReady: 4, state: 'PartialDisruption' });
  });

  it('swaps taints, stamping a NoExecute taint with its time', () => {
    const now = new Date('2024-05-01T10:00:00.500Z');
    const taints = swappedTaints(
      [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }],
      [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }],
      [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }],
      now,
    );
    expect(taints).toEqual([{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2024-05-01T10:00:00Z' }]);
    expect(swappedTaints([{ key: 'k', effect: 'NoSchedule' }], [{ key: 'k', effect: 'NoSchedule' }], [], now)).toBeUndefined();
  });
});

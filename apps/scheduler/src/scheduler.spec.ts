import type { Event, Pod } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { SimulatedNodes, type SimulatedNodeSpec } from '@svc/node-simulation';
import { eventually } from '@svc/runtime/testing';
import { startScheduler, type RunningScheduler } from './testing/start-scheduler';

// The scheduler in this process against a real API server, with simulated nodes. No node lifecycle
// controller runs here, so the test lifts the not-ready taint new nodes get, as that controller would.

let env: TestEnvironment;
let nodes: SimulatedNodes;
let scheduler: RunningScheduler;
let serial = 0;

const SPECS: SimulatedNodeSpec[] = [
  { name: 'small', labels: { disk: 'hdd', 'topology.kubernetes.io/zone': 'a' }, capacity: { cpu: '1', memory: '2Gi', pods: '20' } },
  { name: 'big', labels: { disk: 'ssd', 'topology.kubernetes.io/zone': 'b' }, capacity: { cpu: '8', memory: '16Gi', pods: '20' } },
  {
    name: 'gpu',
    labels: { disk: 'ssd', 'topology.kubernetes.io/zone': 'c' },
    capacity: { cpu: '8', memory: '16Gi', pods: '20' },
    taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
  },
];

async function liftNotReadyTaints(names: readonly string[]): Promise<void> {
  for (const name of names) {
    const node = await env.client.nodes.get(name);
    const taints = (node.spec?.taints ?? []).filter((t) => t.key !== 'node.kubernetes.io/not-ready');
    await env.client.nodes.patch(name, { spec: { taints } }, 'merge');
  }
}

beforeAll(async () => {
  env = await startTestEnvironment();
  nodes = await SimulatedNodes.start(env.client, SPECS);
  await liftNotReadyTaints(SPECS.map((s) => s.name));
  scheduler = await startScheduler(env);
}, 60_000);

afterAll(async () => {
  await scheduler?.stop();
  await nodes?.stopAll();
  await env?.stop();
});

type PodSpecPart = Partial<Pod['spec']>;

async function createPod(spec: PodSpecPart & { cpu?: string } = {}, meta: Partial<NonNullable<Pod['metadata']>> = {}): Promise<string> {
  const name = meta.name ?? `p${++serial}`;
  const { cpu, ...rest } = spec;
  await env.client.pods.create({
    metadata: { ...meta, name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx', ...(cpu ? { resources: { requests: { cpu } } } : {}) }], ...rest },
  });
  return name;
}

async function nodeOf(name: string, timeoutMs = 10_000): Promise<string> {
  return eventually(async () => {
    const pod = await env.client.pods.get(name, { namespace: 'default' });
    expect(pod.spec.nodeName).toBeTruthy();
    return pod.spec.nodeName!;
  }, timeoutMs);
}

async function eventsOf(name: string): Promise<Event[]> {
  return (await env.client.events.list({ namespace: 'default' })).items.filter((e) => e.involvedObject.name === name);
}

describe('the scheduler', () => {
  it('places a pod by its nodeSelector, binding it with a Scheduled event', async () => {
    const name = await createPod({ nodeSelector: { disk: 'hdd' } });
    expect(await nodeOf(name)).toBe('small');
    const pod = await env.client.pods.get(name, { namespace: 'default' });
    expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
    await eventually(async () => {
      const scheduled = (await eventsOf(name)).find((e) => e.reason === 'Scheduled');
      expect(scheduled).toMatchObject({
        type: 'Normal',
        message: `Successfully assigned default/${name} to small`,
        source: { component: 'default-scheduler' },
      });
    }, 5_000);
  });

  it('keeps pods off tainted nodes and nodes without room, and honours required node affinity', async () => {
    const cpuHungry = await createPod({ cpu: '2' });
    expect(await nodeOf(cpuHungry)).toBe('big');
    const tolerant = await createPod({
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['c'] }] }],
          },
        },
      },
    });
    expect(await nodeOf(tolerant)).toBe('gpu');
  });

  it('prefers the nodes a preferred node affinity names', async () => {
    const placed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const name = await createPod({
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 100, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['hdd'] }] } },
            ],
          },
        },
      });
      placed.push(await nodeOf(name));
    }
    expect(placed).toEqual(['small', 'small', 'small']);
  });

  it('spreads the pods of one owner over the nodes that fit', async () => {
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'spread', uid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427', controller: true };
    const placed: string[] = [];
    for (let i = 0; i < 4; i++) placed.push(await nodeOf(await createPod({}, { ownerReferences: [owner], labels: { app: 'spread' } })));
    expect(new Set(placed)).toEqual(new Set(['small', 'big']));
  });

  it('says why a pod fits nowhere, in the condition and the event, and binds it once a fitting node appears', async () => {
    const name = await createPod({ cpu: '12' });
    // Every pod here has priority 0, so none may preempt another: Kubernetes says so after the filters' reasons.
    const message =
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';
    await eventually(async () => {
      const pod = await env.client.pods.get(name, { namespace: 'default' });
      expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({ status: 'False', reason: 'Unschedulable', message });
      expect((await eventsOf(name)).find((e) => e.reason === 'FailedScheduling')).toMatchObject({ type: 'Warning', message });
    }, 10_000);
    await nodes.add({ name: 'huge', capacity: { cpu: '64', memory: '128Gi', pods: '20' } });
    await liftNotReadyTaints(['huge']);
    expect(await nodeOf(name)).toBe('huge');
  });

  it('keeps pods with required anti-affinity on kubernetes.io/hostname on distinct nodes', async () => {
    const antiAffinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'solo' } }, topologyKey: 'kubernetes.io/hostname' }],
      },
    };
    const placed = new Set<string>();
    for (let i = 0; i < 3; i++) placed.add(await nodeOf(await createPod({ affinity: antiAffinity }, { labels: { app: 'solo' } })));
    expect(placed.size).toBe(3);
    const fourth = await createPod({ affinity: antiAffinity }, { labels: { app: 'solo' } });
    await eventually(async () => {
      const condition = (await env.client.pods.get(fourth, { namespace: 'default' })).status?.conditions?.find((c) => c.type === 'PodScheduled');
      expect(condition?.message).toBe(
        // The placed pods' own anti-affinity is checked first, as in Kubernetes.
        "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 3 node(s) didn't satisfy existing pods anti-affinity rules. " +
          'preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.',
      );
    }, 10_000);
  });

  it('places a pod with required affinity next to the pods it names', async () => {
    const target = await nodeOf(await createPod({ nodeSelector: { disk: 'hdd' } }, { labels: { role: 'db' } }));
    const follower = await createPod({
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { role: 'db' } }, topologyKey: 'kubernetes.io/hostname' }],
        },
      },
    });
    expect(await nodeOf(follower)).toBe(target);
  });

  it('keeps host ports apart', async () => {
    const ports = { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }] }] };
    const placed = new Set<string>();
    for (let i = 0; i < 3; i++) placed.add(await nodeOf(await createPod(ports)));
    expect(placed.size).toBe(3);
  });

  it('leaves pods of another scheduler alone', async () => {
    const name = await createPod({ schedulerName: 'other-scheduler' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const pod = await env.client.pods.get(name, { namespace: 'default' });
    expect(pod.spec.nodeName).toBeUndefined();
    expect(pod.status?.conditions ?? []).toEqual([]);
  });

  it('counts its attempts in its metrics', async () => {
    const metrics = await scheduler.manager.registry.metrics();
    expect(metrics).toMatch(/scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} \d+/);
    const pending = [...metrics.matchAll(/scheduler_pending_pods\{queue="(\w+)"\} (\d+)/g)].map(([, queue, count]) => [queue, Number(count)]);
    expect(Object.fromEntries(pending)).toEqual({ active: expect.any(Number), backoff: expect.any(Number), unschedulable: expect.any(Number) });
    // The fourth pod that anti-affinity keeps out is still pending, waiting or backing off.
    expect(pending.reduce((sum, [, count]) => sum + (count as number), 0)).toBeGreaterThanOrEqual(1);
  });
});

// Priority and preemption on the real processes: the API server (its Priority admission resolving
// priorityClassName), the scheduler, and simulated nodes whose capacity is on their Node status and
// which report pods running and finish their deletion as a node agent would. Every test pins its
// pods to nodes of its own through node affinity, so the nodes outside a test are not its candidates.
import type { Event, Pod, PodCondition } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startNodeSimulatorProcess, type NodeSimulatorProcess } from './support/node-simulator-process';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

jest.setTimeout(60_000);

const NODES = ['prio-a', 'prio-b', 'prio-c', 'prio-d'];

let apiserver: ApiServerProcess;
let scheduler: SchedulerProcess;
let simulator: NodeSimulatorProcess;
let client: Client;
const watches: Array<{ stop(): void }> = [];

beforeAll(async () => {
  apiserver = await startApiServerProcess();
  client = new Client({ ...(await loadClientConfig({ svcconfig: apiserver.kubeconfig })), qps: -1 });
  [scheduler, simulator] = await Promise.all([
    startSchedulerProcess(apiserver, ['--leader-elect=false']),
    startNodeSimulatorProcess(apiserver, [`--node-names=${NODES.join(',')}`, '--capacity=cpu=2,memory=4Gi,pods=10']),
  ]);
  // No node lifecycle controller runs here: the test lifts the not-ready taint new nodes start with.
  for (const name of NODES) await client.nodes.patch(name, { spec: { taints: [] } }, 'merge');
  await client.priorityClasses.create({ metadata: { name: 'low' }, value: 100 });
  await client.priorityClasses.create({ metadata: { name: 'high' }, value: 1000 });
  await client.priorityClasses.create({ metadata: { name: 'high-never' }, value: 1000, preemptionPolicy: 'Never' });
}, 60_000);

afterAll(async () => {
  for (const w of watches) w.stop();
  await simulator?.stop();
  await scheduler?.stop();
  client?.close();
  await apiserver?.stop();
});

/** Every state of every pod of the namespace, as a watch delivers them, from its creation on. */
async function namespaceWithHistory(name: string): Promise<Pod[]> {
  await client.namespaces.create({ metadata: { name } });
  const seen: Pod[] = [];
  const watch = await client.pods.watch({ namespace: name });
  watches.push(watch);
  void (async () => {
    for await (const event of watch) if (event.type !== 'BOOKMARK') seen.push(event.object);
  })().catch(() => undefined);
  return seen;
}

/** A pod asking for a whole node's 2 CPUs, on one of `nodes`. */
async function createPod(namespace: string, name: string, nodes: string[], spec: Partial<Pod['spec']> = {}, labels?: Record<string, string>): Promise<Pod> {
  return client.pods.create({
    metadata: { name, namespace, labels },
    spec: {
      containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '2' } } }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: nodes }] }],
          },
        },
      },
      ...spec,
    },
  });
}

async function runningOn(namespace: string, name: string): Promise<string> {
  return eventually(async () => {
    const pod = await client.pods.get(name, { namespace });
    expect(pod.status?.phase).toBe('Running');
    return pod.spec.nodeName!;
  }, 20_000);
}

function condition(pod: Pod | undefined, type: string): PodCondition | undefined {
  return pod?.status?.conditions?.find((c) => c.type === type);
}

async function eventsOf(namespace: string, name: string): Promise<Event[]> {
  return (await client.events.list({ namespace })).items.filter((e) => e.involvedObject.name === name);
}

/** The PodScheduled=False message the scheduler gives the pod, once it gives one. */
async function unschedulableMessage(namespace: string, name: string): Promise<string> {
  return eventually(async () => {
    const scheduled = condition(await client.pods.get(name, { namespace }), 'PodScheduled');
    expect(scheduled).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    return scheduled!.message!;
  }, 20_000);
}

describe('priority', () => {
  it('comes from the built-in system classes as from any other', async () => {
    const ns = 'priority-system';
    await client.namespaces.create({ metadata: { name: ns } });
    const critical = await createPod(ns, 'critical', ['no-such-node'], { priorityClassName: 'system-cluster-critical' });
    const nodeCritical = await createPod(ns, 'node-critical', ['no-such-node'], { priorityClassName: 'system-node-critical' });
    expect([critical.spec.priority, nodeCritical.spec.priority]).toEqual([2_000_000_000, 2_000_001_000]);
    await client.pods.delete('critical', { namespace: ns, gracePeriodSeconds: 0 });
    await client.pods.delete('node-critical', { namespace: ns, gracePeriodSeconds: 0 });
  });
});

describe('preemption', () => {
  it('evicts a low-priority pod from a full node for a high-priority one, which is nominated there and then bound', async () => {
    const ns = 'preempt-basic';
    const history = await namespaceWithHistory(ns);
    await createPod(ns, 'victim', ['prio-a'], { priorityClassName: 'low' });
    expect(await runningOn(ns, 'victim')).toBe('prio-a');
    const preemptor = await createPod(ns, 'preemptor', ['prio-a'], { priorityClassName: 'high' });
    expect(preemptor.spec.priority).toBe(1000);

    expect(await runningOn(ns, 'preemptor')).toBe('prio-a');
    await eventually(async () => expect(await client.pods.list({ namespace: ns })).toMatchObject({ items: [{ metadata: { name: 'preemptor' } }] }), 10_000);

    // The victim was told why before it went, and went gracefully (deleted by its node, not by the scheduler).
    const victimStates = history.filter((p) => p.metadata?.name === 'victim');
    const told = victimStates.find((p) => condition(p, 'DisruptionTarget'));
    expect(condition(told, 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'PreemptionByScheduler',
      message: 'default-scheduler: preempting to accommodate a higher priority pod',
    });
    expect(victimStates.some((p) => p.metadata?.deletionTimestamp && (p.metadata.deletionGracePeriodSeconds ?? 0) > 0)).toBe(true);

    // The preemptor was nominated to the node before it was bound there.
    const preemptorStates = history.filter((p) => p.metadata?.name === 'preemptor');
    const nominatedAt = preemptorStates.findIndex((p) => p.status?.nominatedNodeName === 'prio-a');
    const boundAt = preemptorStates.findIndex((p) => p.spec.nodeName === 'prio-a');
    expect(nominatedAt).toBeGreaterThanOrEqual(0);
    expect(nominatedAt).toBeLessThan(boundAt);
    expect(preemptorStates.slice(0, boundAt).every((p) => !p.spec.nodeName)).toBe(true);

    await eventually(async () => {
      const preempted = (await eventsOf(ns, 'victim')).find((e) => e.reason === 'Preempted');
      expect(preempted).toMatchObject({ type: 'Normal', message: `Preempted by pod ${preemptor.metadata!.uid} on node prio-a` });
      // Preemption found a node, so the message is the filters' alone.
      const failed = (await eventsOf(ns, 'preemptor')).filter((e) => e.reason === 'FailedScheduling').map((e) => e.message);
      expect(failed).toContain("0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector.");
      expect((await eventsOf(ns, 'preemptor')).find((e) => e.reason === 'Scheduled')?.message).toBe(`Successfully assigned ${ns}/preemptor to prio-a`);
    }, 10_000);
  });

  it('never preempts for a pod with preemptionPolicy Never, nor for one of equal priority', async () => {
    const ns = 'preempt-never';
    await namespaceWithHistory(ns);
    await createPod(ns, 'tenant', ['prio-b'], { priorityClassName: 'low' });
    expect(await runningOn(ns, 'tenant')).toBe('prio-b');
    const never = await createPod(ns, 'never', ['prio-b'], { priorityClassName: 'high-never' });
    expect(never.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'Never' });
    await createPod(ns, 'peer', ['prio-b'], { priorityClassName: 'low' });

    expect(await unschedulableMessage(ns, 'never')).toBe(
      "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector. preemption: not eligible due to preemptionPolicy=Never.",
    );
    expect(await unschedulableMessage(ns, 'peer')).toBe(
      "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector. " +
        'preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.',
    );
    const tenant = await client.pods.get('tenant', { namespace: ns });
    expect(tenant.metadata?.deletionTimestamp).toBeUndefined();
    expect(condition(tenant, 'DisruptionTarget')).toBeUndefined();
    for (const name of ['never', 'peer']) expect((await client.pods.get(name, { namespace: ns })).status?.nominatedNodeName).toBeUndefined();
  });

  it('preempts on the node whose victim no PodDisruptionBudget protects', async () => {
    const ns = 'preempt-budget';
    const history = await namespaceWithHistory(ns);
    // A budget that allows no disruption of the guarded pod (its status says 0 until a controller counts).
    await client.podDisruptionBudgets.create({
      metadata: { name: 'guard', namespace: ns },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } },
    });
    await createPod(ns, 'guarded', ['prio-c'], { priorityClassName: 'low' }, { app: 'guarded' });
    await createPod(ns, 'unguarded', ['prio-d'], { priorityClassName: 'low' }, { app: 'unguarded' });
    expect(await runningOn(ns, 'guarded')).toBe('prio-c');
    expect(await runningOn(ns, 'unguarded')).toBe('prio-d');

    await createPod(ns, 'preemptor', ['prio-c', 'prio-d'], { priorityClassName: 'high' });
    expect(await runningOn(ns, 'preemptor')).toBe('prio-d');
    expect(history.some((p) => p.metadata?.name === 'preemptor' && p.status?.nominatedNodeName === 'prio-d')).toBe(true);
    const guarded = await client.pods.get('guarded', { namespace: ns });
    expect(guarded.metadata?.deletionTimestamp).toBeUndefined();
    expect(condition(guarded, 'DisruptionTarget')).toBeUndefined();
    expect(history.some((p) => p.metadata?.name === 'unguarded' && condition(p, 'DisruptionTarget')?.reason === 'PreemptionByScheduler')).toBe(true);
  });
});

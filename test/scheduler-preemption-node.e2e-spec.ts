// Priority preemption on a real node: the scheduler evicts a running low-priority pod in a container
// from a node the high-priority pod cannot otherwise fit on; the node agent stops the victim's
// container within its grace period, and the preemptor is nominated, bound and runs there.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { kubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Preemption tests on a node agent are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

describeWithRuntime('priority preemption on a node agent running busybox', () => {
  let cluster: NodeCluster;
  let scheduler: SchedulerProcess;
  const env = () => cluster.env();
  const get = async (kind: string, name: string) => JSON.parse((await kubectl(['get', kind, name, '-o', 'json'], env())).stdout);

  /** `kubectl create` of objects, pods left for the scheduler to place (no nodeName). */
  async function create(...objects: unknown[]): Promise<void> {
    const file = join(cluster.apiserver.dir, `preemption-${Date.now()}-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, objects.map((o) => stringify(o)).join('---\n'));
    await kubectl(['create', '-f', file], env());
  }

  const pod = (name: string, priorityClassName: string, cpuMillis: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      priorityClassName,
      terminationGracePeriodSeconds: 2,
      containers: [
        {
          name: 'main',
          image: 'busybox:1.36',
          command: ['sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'],
          resources: { requests: { cpu: `${cpuMillis}m` } },
        },
      ],
    },
  });

  beforeAll(async () => {
    cluster = await startNodeCluster();
    scheduler = await startSchedulerProcess(cluster.apiserver, ['--leader-elect=false']);
    // No node lifecycle controller runs here: the test lifts the not-ready taint a new node starts with.
    await kubectl(['patch', 'node', cluster.agent.nodeName, '--type=merge', '-p', '{"spec":{"taints":[]}}'], env());
  }, 120_000);

  afterAll(async () => {
    await scheduler?.stop();
    await cluster?.stop();
  }, 60_000);

  it('evicts a running low-priority pod for a high-priority one that cannot fit beside it, which is nominated, bound and runs on that node', async () => {
    const node = await get('node', cluster.agent.nodeName);
    const allocatable = node.status.allocatable.cpu as string;
    const millis = allocatable.endsWith('m') ? Number(allocatable.slice(0, -1)) : Number(allocatable) * 1000;
    // Each asks for 60% of the node: either fits alone, both never do.
    const share = Math.floor(millis * 0.6);
    await create(
      { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'low' }, value: 100 },
      { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 },
    );
    await create(pod('victim', 'low', share));
    await kubectl(['wait', '--for=condition=Ready', 'pod/victim', '--timeout=60s'], env(), 65_000);
    const victim = await get('pod', 'victim');
    expect(victim.spec.nodeName).toBe(cluster.agent.nodeName);
    expect(victim.spec.priority).toBe(100);

    await create(pod('preemptor', 'high', share));
    const preemptor = await eventually(
      async () => {
        const p = await get('pod', 'preemptor');
        expect(p.status.phase).toBe('Running');
        return p;
      },
      60_000,
      250,
    );
    expect(preemptor.spec.nodeName).toBe(cluster.agent.nodeName);
    expect(preemptor.spec.priority).toBe(1000);

    // The victim went, with Kubernetes' DisruptionTarget condition written before its deletion, and the events say why.
    const gone = await kubectl(['get', 'pod', 'victim', '--ignore-not-found', '-o', 'name'], env());
    expect(gone.stdout).toBe('');
    const events = JSON.parse((await kubectl(['get', 'events', '-o', 'json'], env())).stdout).items as Array<{
      reason: string;
      involvedObject: { name: string };
      message: string;
    }>;
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          reason: 'Preempted',
          involvedObject: expect.objectContaining({ name: 'victim' }),
          message: expect.stringContaining('Preempted by pod'),
        }),
        expect.objectContaining({ reason: 'Scheduled', involvedObject: expect.objectContaining({ name: 'preemptor' }) }),
      ]),
    );
  }, 150_000);
});

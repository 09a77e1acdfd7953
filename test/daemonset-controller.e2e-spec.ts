// The DaemonSet controller on real processes, driven with kubectl: an API server, the controller
// manager, the scheduler, one real node agent running busybox in containerd, and simulated nodes
// beside it (each simulator a process of its own, so that a node can join and leave).
import type { DaemonSet, Pod } from '@svc/api';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';
import { startNodeSimulatorProcess, type NodeSimulatorProcess } from './support/node-simulator-process';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`DaemonSet tests on a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

/** Simulated nodes renew their leases well inside the node lifecycle controller's grace period. */
const NODE_LEASE = '--node-lease-duration-seconds=10';

describeWithRuntime('the DaemonSet controller with kubectl, a real node agent and simulated nodes', () => {
  let cluster: NodeCluster;
  let controllers: ControllerManagerProcess;
  let scheduler: SchedulerProcess;
  const simulators = new Map<string, NodeSimulatorProcess>();
  const env = () => cluster.env();
  const run = async (...args: string[]) => (await kubectl(args, env(), 60_000)).stdout;
  const realNode = () => cluster.agent.nodeName;

  const simulate = async (name: string) => {
    simulators.set(name, await startNodeSimulatorProcess(cluster.apiserver, [`--node-names=${name}`, NODE_LEASE, '--delete-nodes-on-exit']));
  };
  const daemonSet = async (): Promise<DaemonSet> => JSON.parse(await run('get', 'daemonset', 'agent', '-o', 'json'));
  const daemonPods = async (): Promise<Pod[]> =>
    (JSON.parse(await run('get', 'pods', '-l', 'app=agent', '-o', 'json')).items as Pod[]).filter((p) => !p.metadata?.deletionTimestamp);
  const byNode = (pods: Pod[]) => new Map(pods.map((p) => [p.spec.nodeName ?? '', p]));

  beforeAll(async () => {
    cluster = await startNodeCluster();
    [controllers, scheduler] = await Promise.all([startControllerManagerProcess(cluster.apiserver), startSchedulerProcess(cluster.apiserver)]);
    await simulate('ds-sim-b');
    // A node that just registered carries the not-ready NoSchedule taint until the node lifecycle
    // controller sees it Ready; a daemon pod does not tolerate it, so the DaemonSet would find no node.
    await eventually(
      async () => {
        const nodes = JSON.parse(await run('get', 'nodes', '-o', 'json')).items as Array<{ spec?: { taints?: Array<{ key: string }> } }>;
        expect(nodes).toHaveLength(2);
        expect(nodes.flatMap((n) => n.spec?.taints ?? []).map((t) => t.key)).toEqual([]);
      },
      30_000,
      250,
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([...simulators.values()].map((s) => s.stop()));
    await Promise.allSettled([controllers?.stop(), scheduler?.stop()]);
    await cluster?.stop();
  }, 60_000);

  it('runs one pod on each of the two nodes, placed by the scheduler through a matchFields node affinity', async () => {
    await cluster.apply({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'agent',
                image: 'busybox:1.36',
                command: ['sh', '-c', 'echo "daemon on $NODE_NAME version ${VERSION:-1}"; exec sleep 3600'],
                env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              },
            ],
          },
        },
      },
    });
    expect(await run('rollout', 'status', 'daemonset/agent', '--timeout=60s')).toContain('daemon set "agent" successfully rolled out');

    const pods = byNode(await daemonPods());
    expect([...pods.keys()].sort()).toEqual(['ds-sim-b', realNode()].sort());
    for (const [node, pod] of pods) {
      expect(pod.spec.affinity).toEqual({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
        },
      });
      expect(pod.metadata?.labels).toMatchObject({ 'pod-template-generation': '1', 'controller-revision-hash': expect.any(String) });
    }
    await eventually(async () => expect(await run('logs', pods.get(realNode())!.metadata!.name!)).toContain(`daemon on ${realNode()} version 1`), 20_000, 250);
    expect((await daemonSet()).status).toMatchObject({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      numberReady: 2,
      numberAvailable: 2,
      updatedNumberScheduled: 2,
    });
  }, 90_000);

  it('gives a third node its pod when it joins', async () => {
    await simulate('ds-sim-c');
    await eventually(
      async () => {
        expect([...byNode(await daemonPods()).keys()].sort()).toEqual(['ds-sim-b', 'ds-sim-c', realNode()].sort());
        expect((await daemonSet()).status).toMatchObject({ desiredNumberScheduled: 3, numberAvailable: 3 });
      },
      30_000,
      250,
    );
  }, 40_000);

  it('refuses a change of the selector with 422 and the field path Kubernetes gives', async () => {
    const patch = JSON.stringify({ spec: { selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'other' } } } } });
    const refused = await runKubectl(['patch', 'daemonset', 'agent', '-p', patch, '-v=6'], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/PATCH .*daemonsets\/agent.* 422 /);
    expect(refused.stderr).toContain('The DaemonSet "agent" is invalid: spec.selector: Invalid value:');
    expect(refused.stderr).toContain('field is immutable');
  });

  it('drains a node with --ignore-daemonsets, and a rolling update still replaces the daemon pod of the cordoned node', async () => {
    const drained = await kubectl(['drain', realNode(), '--ignore-daemonsets', '--timeout=30s'], env(), 40_000);
    expect(drained.stdout).toContain(`node/${realNode()} cordoned`);
    expect(drained.stderr).toMatch(/Warning: ignoring DaemonSet-managed Pods: default\/agent-/);
    expect(drained.stdout).toContain(`node/${realNode()} drained`);
    const before = byNode(await daemonPods());
    expect(before.get(realNode())?.status?.phase).toBe('Running');

    await run('set', 'env', 'daemonset/agent', 'VERSION=2');
    expect(await run('rollout', 'status', 'daemonset/agent', '--timeout=90s')).toContain('successfully rolled out');
    const after = byNode(await daemonPods());
    expect([...after.keys()].sort()).toEqual(['ds-sim-b', 'ds-sim-c', realNode()].sort());
    for (const [node, pod] of after) {
      expect(pod.metadata?.uid).not.toBe(before.get(node)?.metadata?.uid);
      expect(pod.metadata?.labels?.['pod-template-generation']).toBe('2');
    }
    const replaced = after.get(realNode())!;
    expect(replaced.spec.tolerations).toContainEqual({ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' });
    await eventually(async () => expect(await run('logs', replaced.metadata!.name!)).toContain(`daemon on ${realNode()} version 2`), 20_000, 250);
    expect((await daemonSet()).status).toMatchObject({ updatedNumberScheduled: 3, numberAvailable: 3, observedGeneration: 2 });
    await run('uncordon', realNode());
  }, 120_000);

  it('lists its revisions in kubectl rollout history and goes back with kubectl rollout undo', async () => {
    const history = await run('rollout', 'history', 'daemonset/agent');
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    expect(await run('rollout', 'history', 'daemonset/agent', '--revision=2')).toContain('VERSION:\t2');

    expect(await run('rollout', 'undo', 'daemonset/agent')).toContain('daemonset.apps/agent rolled back');
    expect(await run('rollout', 'status', 'daemonset/agent', '--timeout=90s')).toContain('successfully rolled out');
    const ds = await daemonSet();
    expect(ds.spec.template.spec?.containers[0].env).toEqual([
      { name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
    ]);
    expect(await run('rollout', 'history', 'daemonset/agent')).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
  }, 120_000);

  it('no longer counts a node that leaves', async () => {
    await simulators.get('ds-sim-c')!.stop();
    simulators.delete('ds-sim-c');
    await eventually(async () => expect((await daemonSet()).status).toMatchObject({ desiredNumberScheduled: 2, numberMisscheduled: 0 }), 20_000, 250);
  }, 30_000);
});

// Scheduling and node health on the real processes, driven with kubectl: the API server, the
// controller manager (node lifecycle with an 8 s grace period), the scheduler, and simulated nodes,
// each node in a process of its own so that one can be killed as its agent would crash.
import type { Node, Pod } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl as runKubectlOrFail } from './support/kubectl-run';
import { startNodeSimulatorProcess, type NodeSimulatorProcess } from './support/node-simulator-process';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

jest.setTimeout(180_000);

/** Leader election quick enough for a test: a standby takes over 4 s after the leader's last renewal. */
const FAST_ELECTION = ['--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=500ms'];
const LEASE_DURATION_MS = 4_000;
/** Nodes renew their leases every second, well inside the 8 s grace period. */
const NODE_LEASE = '--node-lease-duration-seconds=4';

let apiserver: ApiServerProcess;
let cm: ControllerManagerProcess;
let scheduler: SchedulerProcess;
let client: Client;
const nodeProcesses = new Map<string, NodeSimulatorProcess>();

async function kubectl(...args: string[]): Promise<string> {
  return (await runKubectlOrFail(args, apiserver.kubectlEnv, 60_000)).stdout;
}

async function simulate(name: string, ...flags: string[]): Promise<void> {
  nodeProcesses.set(name, await startNodeSimulatorProcess(apiserver, [`--node-names=${name}`, NODE_LEASE, ...flags]));
}

async function pods(namespace: string): Promise<Pod[]> {
  return (await client.pods.list({ namespace })).items;
}

/** NAME -> NODE of `kubectl get pods -o wide`. */
async function placement(namespace: string): Promise<Map<string, string>> {
  const table = await kubectl('get', 'pods', '-n', namespace, '-o', 'wide', '--no-headers');
  return new Map(
    table
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const cells = line.split(/\s+/);
        return [cells[0], cells[6]] as [string, string];
      }),
  );
}

async function nodeOf(namespace: string, pod: string): Promise<string> {
  return eventually(async () => {
    const node = await kubectl('get', 'pod', pod, '-n', namespace, '-o', 'jsonpath={.spec.nodeName}');
    expect(node).not.toBe('');
    return node;
  }, 20_000);
}

async function namespace(name: string): Promise<string> {
  await kubectl('create', 'namespace', name);
  return name;
}

/** `kubectl run` with a pod spec merged in through --overrides. */
async function run(ns: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await kubectl('run', name, '--image=nginx', '-n', ns, `--overrides=${JSON.stringify({ spec })}`);
}

const requests = (name: string, cpu: string) => ({ containers: [{ name, image: 'nginx', resources: { requests: { cpu } } }] });

beforeAll(async () => {
  apiserver = await startApiServerProcess({ args: ['--default-unreachable-toleration-seconds=5'] });
  client = new Client({ ...(await loadClientConfig({ svcconfig: apiserver.kubeconfig })), qps: -1 });
  cm = await startControllerManagerProcess(apiserver, ['--node-monitor-grace-period=8s', '--node-monitor-period=1s', ...FAST_ELECTION]);
  scheduler = await startSchedulerProcess(apiserver, FAST_ELECTION);
  await simulate('node-a', '--node-labels=disk=ssd', '--zones=a', '--capacity=cpu=4,memory=8Gi,pods=30');
  await simulate('node-b', '--node-labels=disk=hdd', '--zones=b', '--capacity=cpu=2,memory=4Gi,pods=30');
  await simulate('node-c', '--node-labels=disk=ssd', '--zones=c', '--capacity=cpu=8,memory=16Gi,pods=30', '--register-with-taints=dedicated=gpu:NoSchedule');
  // The node lifecycle controller lifts the not-ready taint each new node starts with once it is Ready.
  await eventually(async () => {
    const taints = await kubectl('get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.taints[*].key};{end}');
    expect(taints).toBe('node-a=;node-b=;node-c=dedicated;');
  }, 30_000);
});

afterAll(async () => {
  client?.close();
  for (const p of nodeProcesses.values()) await p.stop();
  await scheduler?.stop();
  await cm?.stop();
  await apiserver?.stop();
});

describe('placing pods', () => {
  it('puts pods where the filters and scores say', async () => {
    const ns = await namespace('placing');
    await run(ns, 'on-hdd', { nodeSelector: { disk: 'hdd' } });
    await run(ns, 'needs-three-cpus', requests('needs-three-cpus', '3'));
    await run(ns, 'on-gpu', {
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['c'] }] }],
          },
        },
      },
    });
    await kubectl('create', 'deployment', 'spread', '--image=nginx', '--replicas=4', '-n', ns);
    await kubectl('rollout', 'status', 'deployment/spread', '-n', ns, '--timeout=60s');

    expect(await nodeOf(ns, 'on-hdd')).toBe('node-b');
    // node-b has 2 CPUs, node-c is tainted: only node-a fits.
    expect(await nodeOf(ns, 'needs-three-cpus')).toBe('node-a');
    expect(await nodeOf(ns, 'on-gpu')).toBe('node-c');
    const spread = [...(await placement(ns))].filter(([name]) => name.startsWith('spread-')).map(([, node]) => node);
    expect(spread).toHaveLength(4);
    // The tainted node takes none; the replicas are spread over the other two.
    expect(spread.filter((n) => n === 'node-a').length).toBe(2);
    expect(spread.filter((n) => n === 'node-b').length).toBe(2);
    const described = await kubectl('describe', 'pod', 'on-hdd', '-n', ns);
    expect(described).toMatch(/Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned placing\/on-hdd to node-b/);
  });

  it('says why a pod fits nowhere, and binds it as soon as a fitting node appears', async () => {
    const ns = await namespace('nowhere');
    await run(ns, 'huge', requests('huge', '12'));
    // No pod here outranks another, so preemption cannot help either, and Kubernetes says so.
    const message =
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';
    await eventually(async () => {
      const condition = await kubectl('get', 'pod', 'huge', '-n', ns, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")]}');
      expect(JSON.parse(condition)).toMatchObject({ status: 'False', reason: 'Unschedulable', message });
      expect(await kubectl('describe', 'pod', 'huge', '-n', ns)).toMatch(
        new RegExp(`Warning\\s+FailedScheduling\\s+\\S+\\s+default-scheduler\\s+${escape(message)}`),
      );
    }, 20_000);

    await simulate('node-d', '--zones=d', '--capacity=cpu=16,memory=32Gi,pods=30');
    expect(await nodeOf(ns, 'huge')).toBe('node-d');
    await kubectl('delete', 'namespace', ns, '--wait=false');
    await nodeProcesses.get('node-d')!.stop();
    nodeProcesses.delete('node-d');
    await kubectl('delete', 'node', 'node-d');
  });
});

describe('kubectl drain', () => {
  const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

  it('cordons the node and evicts its pods no faster than their PodDisruptionBudget allows, while the Deployment replaces them elsewhere', async () => {
    const ns = await namespace('drain');
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=4', '-n', ns);
    await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
    await kubectl('create', 'pdb', 'web', '--selector=app=web', '--min-available=3', '-n', ns);
    // The disruption controller counts the four ready pods against the three the budget keeps.
    await eventually(async () => {
      const status = JSON.parse(await kubectl('get', 'pdb', 'web', '-n', ns, '-o', 'jsonpath={.status}')) as Record<string, number>;
      expect(status).toMatchObject({ expectedPods: 4, currentHealthy: 4, desiredHealthy: 3, disruptionsAllowed: 1 });
    }, 30_000);
    const onNode = [...(await placement(ns))].filter(([, node]) => node === 'node-a').map(([name]) => name);
    expect(onNode.length).toBeGreaterThan(0);

    // Every change to the namespace's pods is checked: never fewer than three ready pods that are not going away.
    const list = await client.pods.list({ namespace: ns });
    const current = new Map(list.items.map((p) => [p.metadata!.name!, p]));
    const violations: string[] = [];
    const watch = await client.pods.watch({ namespace: ns, resourceVersion: list.metadata?.resourceVersion });
    const watching = (async () => {
      for await (const event of watch) {
        if (event.type === 'BOOKMARK') continue;
        if (event.type === 'DELETED') current.delete(event.object.metadata!.name!);
        else current.set(event.object.metadata!.name!, event.object);
        const serving = [...current.values()].filter((p) => isReady(p) && !p.metadata?.deletionTimestamp).length;
        if (serving < 3) violations.push(`${serving} ready pods after ${event.type} ${event.object.metadata!.name!}`);
      }
    })();
    try {
      // Only this deployment's pods: the bare pods earlier tests left on the node would need --force.
      const drained = await runKubectlOrFail(['drain', 'node-a', '--pod-selector=app=web', '--timeout=90s'], apiserver.kubectlEnv, 120_000);
      expect(drained.stdout).toContain('node/node-a drained');
      for (const name of onNode) expect(drained.stdout).toContain(`pod/${name} evicted`);
      // kubectl evicts the node's pods at once: past the first, the budget answers 429 and kubectl asks again.
      if (onNode.length > 1) expect(drained.stderr).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
      expect(violations).toEqual([]);
      expect(await kubectl('get', 'node', 'node-a', '-o', 'jsonpath={.spec.unschedulable}')).toBe('true');
      await eventually(async () => {
        const after = await placement(ns);
        expect([...after.values()].filter((node) => node === 'node-a')).toEqual([]);
        expect((await pods(ns)).filter((p) => isReady(p) && !p.metadata?.deletionTimestamp)).toHaveLength(4);
      }, 30_000);
    } finally {
      watch.stop();
      await watching.catch(() => undefined);
      await kubectl('uncordon', 'node-a');
    }
  });
});

describe('a node that stops renewing', () => {
  it('turns Unknown, is tainted unreachable, loses its pods after their tolerationSeconds, and the Deployment replaces them on healthy nodes', async () => {
    const ns = await namespace('failover');
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=4', '-n', ns);
    await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
    const before = await placement(ns);
    const doomed = [...before].filter(([, node]) => node === 'node-b').map(([name]) => name);
    expect(doomed.length).toBeGreaterThan(0);
    const toleration = await kubectl(
      'get',
      'pod',
      doomed[0],
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.tolerations[?(@.key=="node.kubernetes.io/unreachable")].tolerationSeconds}',
    );
    expect(toleration).toBe('5');

    await nodeProcesses.get('node-b')!.kill();
    const tainted = await eventually(async () => {
      const node = JSON.parse(await kubectl('get', 'node', 'node-b', '-o', 'json')) as Node;
      expect(node.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown' });
      const taint = node.spec?.taints?.find((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute');
      expect(taint?.timeAdded).toBeDefined();
      return Date.parse(taint!.timeAdded!);
    }, 40_000);
    expect(await kubectl('get', 'node', 'node-b', '--no-headers')).toMatch(/node-b\s+NotReady/);

    // Evicted once the 5 s of toleration are over, not before (the taint's time is to the second).
    const evictedAt = await eventually(
      async () => {
        const all = await pods(ns);
        for (const name of doomed) {
          const pod = all.find((p) => p.metadata?.name === name);
          expect(pod === undefined || pod.metadata?.deletionTimestamp !== undefined).toBe(true);
        }
        return Date.now();
      },
      30_000,
      100,
    );
    expect(evictedAt - tainted).toBeGreaterThanOrEqual(4_000);

    await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
    await eventually(async () => {
      const live = (await pods(ns)).filter((p) => !p.metadata?.deletionTimestamp);
      expect(live).toHaveLength(4);
      for (const pod of live) {
        expect(pod.spec.nodeName).toBe('node-a');
        expect(pod.status?.phase).toBe('Running');
      }
    }, 30_000);
  });
});

describe('scheduler leader election', () => {
  it('a standby replaces a leader killed with SIGKILL, and binds pods created meanwhile within the lease duration plus 5 s', async () => {
    await eventually(() => expect(scheduler.stdout()).toContain('acquired lease'), 20_000);
    const standby = await startSchedulerProcess(apiserver, FAST_ELECTION);
    try {
      const ns = await namespace('leaderless');
      await scheduler.kill();
      const killedAt = Date.now();
      await kubectl('create', 'deployment', 'orphans', '--image=nginx', '--replicas=5', '-n', ns);
      await eventually(
        async () => {
          const all = await pods(ns);
          expect(all).toHaveLength(5);
          for (const pod of all) expect(pod.spec.nodeName).toBeTruthy();
        },
        LEASE_DURATION_MS + 5_000 + 2_000,
        100,
      );
      expect(Date.now() - killedAt).toBeLessThan(LEASE_DURATION_MS + 5_000);
      expect(standby.stdout()).toContain('acquired lease');
      const holder = await kubectl('get', 'lease', 'svc-scheduler', '-n', 'svc-system', '-o', 'jsonpath={.spec.holderIdentity}');
      expect(standby.stdout()).toContain(holder);
    } finally {
      scheduler = standby;
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

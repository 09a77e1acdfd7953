// The control plane as a user runs it: the API server and controller manager processes, driven with
// kubectl. No node agent runs pods yet, so a simulator marks pods ready through their status, as a
// node agent would.
import type { Deployment, Pod, ReplicaSet } from '@svc/api';
import { join } from 'node:path';
import { Client, loadClientConfig } from '@svc/client';
import { PodReadinessSimulator } from '@svc/node-simulation';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl as runKubectlOrFail, runKubectl } from './support/kubectl-run';

jest.setTimeout(120_000);

let apiserver: ApiServerProcess;
let cm: ControllerManagerProcess;
let client: Client;
let simulator: PodReadinessSimulator;
/** Pods the simulator leaves not ready: by namespace, or by name. */
const held = new Set<string>();

async function kubectl(...args: string[]): Promise<string> {
  return (await runKubectlOrFail(args, apiserver.kubectlEnv, 60_000)).stdout;
}

function holdPods(...keys: string[]): void {
  for (const key of keys) held.add(key);
  simulator.setReadiness(readiness);
}

function releasePods(...keys: string[]): void {
  for (const key of keys) held.delete(key);
  simulator.setReadiness(readiness);
}

function readiness(pod: Pod): boolean {
  return !held.has(pod.metadata!.namespace!) && !held.has(pod.metadata!.name!);
}

async function pods(namespace: string, selector?: string): Promise<Pod[]> {
  return (await client.pods.list({ namespace, labelSelector: selector })).items;
}

async function replicaSets(namespace: string): Promise<ReplicaSet[]> {
  return (await client.replicaSets.list({ namespace })).items;
}

function condition(d: Deployment, type: string): string | undefined {
  return d.status?.conditions?.find((c) => c.type === type)?.status;
}

function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

async function namespace(name: string): Promise<string> {
  await kubectl('create', 'namespace', name);
  return name;
}

/** `kubectl create deployment` and wait until its rollout is complete with every pod ready. */
async function readyDeployment(ns: string, name: string, replicas: number, image = 'nginx'): Promise<void> {
  await kubectl('create', 'deployment', name, `--image=${image}`, `--replicas=${replicas}`, '-n', ns);
  await kubectl('rollout', 'status', `deployment/${name}`, '-n', ns, '--timeout=60s');
}

/**
 * Follows the pods of a namespace through a watch and checks a rule after every change, so that a
 * bound broken for a moment between two polls is still seen.
 */
async function watchPods(ns: string, check: (pods: Map<string, Pod>) => void): Promise<{ stop(): Promise<void>; violations: string[] }> {
  const list = await client.pods.list({ namespace: ns });
  const current = new Map(list.items.map((p) => [p.metadata!.name!, p]));
  const violations: string[] = [];
  const watch = await client.pods.watch({ namespace: ns, resourceVersion: list.metadata?.resourceVersion });
  const done = (async () => {
    for await (const event of watch) {
      if (event.type === 'BOOKMARK') continue;
      const pod = event.object;
      if (event.type === 'DELETED') current.delete(pod.metadata!.name!);
      else current.set(pod.metadata!.name!, pod);
      try {
        check(current);
      } catch (error) {
        violations.push(error instanceof Error ? error.message : String(error));
      }
    }
  })();
  return {
    violations,
    stop: async () => {
      watch.stop();
      await done.catch(() => undefined);
    },
  };
}

beforeAll(async () => {
  apiserver = await startApiServerProcess();
  cm = await startControllerManagerProcess(apiserver);
  client = new Client({ ...(await loadClientConfig({ svcconfig: apiserver.kubeconfig })), qps: -1 });
  simulator = await PodReadinessSimulator.start(client, { ready: readiness });
});

afterAll(async () => {
  await simulator?.stop();
  client?.close();
  await cm?.stop();
  await apiserver?.stop();
});

describe('deployments through kubectl', () => {
  it('create deployment gives one ReplicaSet and three pods, and the deployment becomes Available once they are ready', async () => {
    const ns = await namespace('create');
    holdPods(ns);
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=3', '-n', ns);

    const [rs] = await eventually(async () => {
      const sets = await replicaSets(ns);
      expect(sets).toHaveLength(1);
      expect(await pods(ns)).toHaveLength(3);
      return sets;
    }, 20_000);
    const deployment = await client.deployments.get('web', { namespace: ns });
    expect(rs.metadata?.name).toMatch(/^web-[a-z0-9]+$/);
    expect(rs.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Deployment', name: 'web', uid: deployment.metadata?.uid, controller: true }),
    ]);
    for (const pod of await pods(ns)) {
      expect(pod.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'ReplicaSet', name: rs.metadata?.name, controller: true })]);
      expect(pod.metadata?.labels).toMatchObject({ app: 'web', 'pod-template-hash': rs.metadata?.labels?.['pod-template-hash'] });
    }
    await eventually(async () => expect(condition(await client.deployments.get('web', { namespace: ns }), 'Available')).toBe('False'), 10_000);

    releasePods(ns);
    const status = await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
    expect(status).toContain('successfully rolled out');
    const available = await client.deployments.get('web', { namespace: ns });
    expect(condition(available, 'Available')).toBe('True');
    expect(available.status).toMatchObject({
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: available.metadata?.generation,
    });
    expect(await kubectl('get', 'deployment', 'web', '-n', ns)).toMatch(/web\s+3\/3\s+3\s+3/);
  });

  it('a new image rolls out within maxSurge and maxUnavailable at every observed step, and rollout undo restores the old ReplicaSet', async () => {
    const ns = await namespace('rollout');
    // 8 replicas with the default 25%: at most 8 + 2 pods, at least 8 - 2 ready at any moment.
    await readyDeployment(ns, 'web', 8);
    const [first] = await replicaSets(ns);
    const observed = await watchPods(ns, (all) => {
      const active = [...all.values()].filter((p) => !p.metadata?.deletionTimestamp);
      if (active.length > 10) throw new Error(`${active.length} pods exceed replicas + maxSurge`);
      const ready = active.filter(isReady).length;
      if (ready < 6) throw new Error(`only ${ready} ready pods, below replicas - maxUnavailable`);
    });
    try {
      await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27', '-n', ns);
      await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=90s');
    } finally {
      await observed.stop();
    }
    expect(observed.violations).toEqual([]);
    const afterRollout = await pods(ns);
    expect(afterRollout).toHaveLength(8);
    expect(afterRollout.every((p) => p.spec.containers[0].image === 'nginx:1.27')).toBe(true);
    const sets = await replicaSets(ns);
    expect(sets).toHaveLength(2);
    expect(sets.find((s) => s.metadata?.name === first.metadata?.name)?.spec?.replicas).toBe(0);
    expect((await client.deployments.get('web', { namespace: ns })).metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');

    await kubectl('rollout', 'undo', 'deployment/web', '-n', ns);
    await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=90s');
    const undone = await client.deployments.get('web', { namespace: ns });
    expect(undone.spec.template.spec?.containers[0].image).toBe('nginx');
    expect(undone.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    await eventually(async () => {
      const now = await replicaSets(ns);
      expect(now).toHaveLength(2);
      expect(now.find((s) => s.metadata?.name === first.metadata?.name)?.status?.readyReplicas).toBe(8);
      expect((await pods(ns)).every((p) => p.spec.containers[0].image === 'nginx')).toBe(true);
    }, 20_000);
    const history = await kubectl('rollout', 'history', 'deployment/web', '-n', ns);
    expect(history).toMatch(/^2\s/m);
    expect(history).toMatch(/^3\s/m);
  });

  it('kubectl scale moves the pod count up, down and to zero', async () => {
    const ns = await namespace('scale');
    await readyDeployment(ns, 'web', 2);
    for (const replicas of [6, 1, 0, 3]) {
      await kubectl('scale', 'deployment/web', `--replicas=${replicas}`, '-n', ns);
      await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
      await eventually(async () => {
        expect(await pods(ns)).toHaveLength(replicas);
        const d = await client.deployments.get('web', { namespace: ns });
        expect(d.status?.replicas ?? 0).toBe(replicas);
        expect(d.status?.availableReplicas ?? 0).toBe(replicas);
      }, 20_000);
    }
    expect(await replicaSets(ns)).toHaveLength(1);
  });

  it('deleting a deployment removes its ReplicaSets and pods', async () => {
    const ns = await namespace('delete');
    await readyDeployment(ns, 'web', 3);
    await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27', '-n', ns);
    await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
    expect(await replicaSets(ns)).toHaveLength(2);

    await kubectl('delete', 'deployment', 'web', '-n', ns);
    await eventually(async () => {
      expect(await replicaSets(ns)).toEqual([]);
      expect(await pods(ns)).toEqual([]);
    }, 20_000);
  });
});

describe('cascading deletion through kubectl', () => {
  it('--cascade=orphan keeps the pods of a deleted ReplicaSet, without the owner reference', async () => {
    const ns = await namespace('orphan');
    await readyDeployment(ns, 'web', 2);
    const [rs] = await replicaSets(ns);
    // The deployment would put the ReplicaSet back: orphan the ReplicaSet from it first, then orphan its pods.
    await kubectl('delete', 'deployment', 'web', '--cascade=orphan', '-n', ns);
    await eventually(async () => expect((await replicaSets(ns))[0].metadata?.ownerReferences ?? []).toEqual([]), 20_000);
    await kubectl('delete', 'replicaset', rs.metadata!.name!, '--cascade=orphan', '-n', ns);
    await eventually(async () => {
      expect(await replicaSets(ns)).toEqual([]);
      const left = await pods(ns);
      expect(left).toHaveLength(2);
      for (const pod of left) expect(pod.metadata?.ownerReferences ?? []).toEqual([]);
    }, 20_000);
  });

  it('--cascade=foreground: the deployment is gone only once its ReplicaSets and pods are', async () => {
    const ns = await namespace('foreground');
    await readyDeployment(ns, 'web', 3);
    // kubectl waits until the deployment is gone, which the foreground finalizer holds back until its dependents are.
    await kubectl('delete', 'deployment', 'web', '--cascade=foreground', '-n', ns, '--timeout=60s');
    expect(await replicaSets(ns)).toEqual([]);
    expect(await pods(ns)).toEqual([]);
  });
});

describe('rollout commands', () => {
  it('rollout pause holds a template change back, resume rolls it out, restart replaces every pod', async () => {
    const ns = await namespace('pause');
    await readyDeployment(ns, 'web', 2);
    await kubectl('rollout', 'pause', 'deployment/web', '-n', ns);
    await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27', '-n', ns);
    await eventually(async () => {
      const d = await client.deployments.get('web', { namespace: ns });
      expect(d.status?.observedGeneration).toBe(d.metadata?.generation);
      expect(d.status?.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe('DeploymentPaused');
    }, 20_000);
    expect(await replicaSets(ns)).toHaveLength(1);
    expect((await pods(ns)).every((p) => p.spec.containers[0].image === 'nginx')).toBe(true);

    await kubectl('rollout', 'resume', 'deployment/web', '-n', ns);
    await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
    await eventually(async () => expect((await pods(ns)).map((p) => p.spec.containers[0].image)).toEqual(['nginx:1.27', 'nginx:1.27']), 20_000);

    const before = new Set((await pods(ns)).map((p) => p.metadata!.uid));
    await kubectl('rollout', 'restart', 'deployment/web', '-n', ns);
    await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
    await eventually(async () => {
      const now = await pods(ns);
      expect(now).toHaveLength(2);
      expect(now.filter((p) => before.has(p.metadata!.uid))).toEqual([]);
    }, 20_000);
    expect(await replicaSets(ns)).toHaveLength(3);
  });
});

describe('endpoints through kubectl expose', () => {
  it('lists the ready pods as addresses and moves a pod that stops being ready to notReadyAddresses', async () => {
    const ns = await namespace('endpoints');
    await readyDeployment(ns, 'api', 3);
    await kubectl('expose', 'deployment', 'api', '--port=80', '--target-port=8080', '-n', ns);
    const ips = (await pods(ns)).map((p) => p.status?.podIP).sort();
    await eventually(async () => {
      const ep = await client.endpoints.get('api', { namespace: ns });
      expect(ep.subsets).toHaveLength(1);
      expect(ep.subsets![0].addresses!.map((a) => a.ip).sort()).toEqual(ips);
      expect(ep.subsets![0].ports).toEqual([expect.objectContaining({ port: 8080, protocol: 'TCP' })]);
    }, 20_000);
    expect(await kubectl('get', 'endpoints', 'api', '-n', ns)).toContain(':8080');

    const [victim] = await pods(ns);
    holdPods(victim.metadata!.name!);
    await eventually(async () => {
      const subset = (await client.endpoints.get('api', { namespace: ns })).subsets![0];
      expect(subset.addresses!.map((a) => a.ip)).toHaveLength(2);
      expect(subset.notReadyAddresses!.map((a) => a.ip)).toEqual([victim.status?.podIP]);
    }, 20_000);
    releasePods(victim.metadata!.name!);
    await eventually(async () => {
      const subset = (await client.endpoints.get('api', { namespace: ns })).subsets![0];
      expect(subset.addresses).toHaveLength(3);
      expect(subset.notReadyAddresses ?? []).toEqual([]);
    }, 20_000);
  });
});

describe('namespaces', () => {
  it('kubectl delete namespace removes everything in it, then the namespace', async () => {
    const ns = await namespace('doomed');
    await readyDeployment(ns, 'web', 3);
    await kubectl('expose', 'deployment', 'web', '--port=80', '-n', ns);
    await kubectl('create', 'configmap', 'settings', '--from-literal=a=1', '-n', ns);
    await kubectl('create', 'secret', 'generic', 'token', '--from-literal=t=x', '-n', ns);

    // kubectl waits until the namespace is gone.
    await kubectl('delete', 'namespace', ns, '--timeout=90s');
    const gone = await runKubectl(['get', 'namespace', ns], apiserver.kubectlEnv);
    expect(gone.stderr).toContain('NotFound');
    for (const list of [client.pods, client.replicaSets, client.deployments, client.services, client.endpoints, client.configMaps, client.secrets]) {
      const items = (await (list as Client['pods']).list()).items as Array<{ metadata?: { namespace?: string } }>;
      expect(items.filter((o) => o.metadata?.namespace === ns)).toEqual([]);
    }
  });
});

describe('custom resources', () => {
  it('the garbage collector follows owner references to and from a custom resource whose type is created while it runs', async () => {
    const ns = await namespace('custom');
    await kubectl('apply', '-f', join(__dirname, '..', 'examples', 'configmap-operator', 'crd.yaml'));
    await eventually(async () => expect(await kubectl('get', 'greetings', '-n', ns)).toBe(''), 20_000);
    const greetings = client.dynamic({ group: 'demo.svc.io', version: 'v1', resource: 'greetings', namespaced: true, kind: 'Greeting' }).inNamespace(ns);
    const owner = await greetings.create({ apiVersion: 'demo.svc.io/v1', kind: 'Greeting', metadata: { name: 'hello' }, spec: { message: 'hi' } });
    const configMaps = client.configMaps.inNamespace(ns);
    const byGreeting = { apiVersion: 'demo.svc.io/v1', kind: 'Greeting', name: 'hello', uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true };
    await configMaps.create({ metadata: { name: 'owned-by-greeting', ownerReferences: [byGreeting] } });
    const cm = await configMaps.create({ metadata: { name: 'owner-of-greeting' } });
    const byConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata!.name!, uid: cm.metadata!.uid! };
    await greetings.create({
      apiVersion: 'demo.svc.io/v1',
      kind: 'Greeting',
      metadata: { name: 'dependent', ownerReferences: [byConfigMap] },
      spec: { message: 'hi' },
    });

    await kubectl('delete', 'greeting', 'hello', '-n', ns);
    await kubectl('delete', 'configmap', 'owner-of-greeting', '-n', ns);
    await eventually(async () => {
      expect((await configMaps.list()).items.map((c) => c.metadata?.name)).not.toContain('owned-by-greeting');
      expect((await greetings.list()).items).toEqual([]);
    }, 30_000);
  });
});

describe('leader election between two controller managers', () => {
  const fast = ['--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=500ms'];

  it('a standby takes over when the leader is killed, and finishes its work without duplicate pods', async () => {
    await cm.stop();
    const first = await startControllerManagerProcess(apiserver, fast);
    let second: ControllerManagerProcess | undefined;
    try {
      await eventually(() => expect(first.stdout()).toContain('acquired lease'), 20_000);
      second = await startControllerManagerProcess(apiserver, fast);
      const ns = await namespace('handover');
      const replicas = 40;
      let most = 0;
      const observed = await watchPods(ns, (all) => {
        most = Math.max(most, all.size);
        if (all.size > replicas) throw new Error(`${all.size} pods for ${replicas} replicas`);
      });
      try {
        await kubectl('create', 'deployment', 'web', '--image=nginx', `--replicas=${replicas}`, '-n', ns);
        // Kill the leader part-way through creating pods.
        await eventually(async () => expect((await pods(ns)).length).toBeGreaterThanOrEqual(5), 20_000, 5);
        await first.kill();
        await eventually(() => expect(second!.stdout()).toContain('acquired lease'), 20_000);
        await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s');
        await eventually(async () => expect(await pods(ns)).toHaveLength(replicas), 20_000);
      } finally {
        await observed.stop();
      }
      expect(observed.violations).toEqual([]);
      expect(most).toBe(replicas);
      expect(await replicaSets(ns)).toHaveLength(1);
      const lease = await kubectl('get', 'lease', 'svc-controller-manager', '-n', 'svc-system', '-o', 'jsonpath={.spec.holderIdentity}');
      expect(second.stdout()).toContain(lease);
    } finally {
      await first.stop();
      await second?.stop();
    }
  });
});

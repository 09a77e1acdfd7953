import 'reflect-metadata';
import type { Deployment, Pod } from '@svc/api';
import { PodReadinessSimulator } from '@svc/node-simulation';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { replicaSetController } from '../replicaset';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { deploymentController } from './index';

// Both controllers as the process runs them, pods marked ready through their status as a node
// agent would: the whole path from a Deployment to ready pods.

let env: TestEnvironment;
let running: RunningControllers;
let simulator: PodReadinessSimulator;
/** Images whose pods never become ready. */
const broken = new Set<string>();

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [replicaSetController, deploymentController]);
  simulator = await PodReadinessSimulator.start(env.client, { ready: (pod) => !broken.has(pod.spec.containers[0].image ?? '') });
});

afterAll(async () => {
  await simulator?.stop();
  await running?.stop();
  await env?.stop();
});

let namespaces = 0;
async function newNamespace(): Promise<string> {
  const name = `rollout-${++namespaces}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

function web(name: string, replicas: number, spec: Partial<Deployment['spec']> = {}): Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
      ...spec,
    },
  };
}

const deployments = (ns: string) => env.client.deployments.inNamespace(ns);
const isReady = (pod: Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const image = (pod: Pod) => pod.spec.containers[0].image;

async function podsOf(ns: string): Promise<Pod[]> {
  return (await env.client.pods.list({ namespace: ns })).items.filter((p) => !p.metadata?.deletionTimestamp);
}

/** `kubectl rollout status`: the generation observed, every replica updated and available, no old ones left. */
async function rolledOut(ns: string, name: string, timeoutMs = 20_000): Promise<Deployment> {
  return eventually(async () => {
    const d = await deployments(ns).get(name);
    const s = d.status ?? {};
    expect(s.observedGeneration).toBe(d.metadata?.generation);
    expect([s.updatedReplicas ?? 0, s.replicas ?? 0, s.availableReplicas ?? 0]).toEqual([d.spec.replicas, d.spec.replicas, d.spec.replicas]);
    expect(d.status?.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe('NewReplicaSetAvailable');
    return d;
  }, timeoutMs);
}

async function setImage(ns: string, name: string, to: string): Promise<void> {
  await deployments(ns).patch(name, { spec: { template: { spec: { containers: [{ name: 'web', image: to }] } } } } as never, 'strategic');
}

/** Lists the namespace's pods over and over (each list one consistent snapshot) until stopped. */
function observePods(ns: string, check: (pods: Pod[]) => void): { stop: () => Promise<number> } {
  let stopped = false;
  let snapshots = 0;
  const loop = (async () => {
    while (!stopped) {
      check(await podsOf(ns));
      snapshots++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return snapshots;
    },
  };
}

describe('deployments with the replica set controller', () => {
  it('brings a Deployment to ready pods labelled with its pod-template-hash', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('web', 4));
    const d = await rolledOut(ns, 'web');
    expect(d.status).toMatchObject({ replicas: 4, readyReplicas: 4, availableReplicas: 4, updatedReplicas: 4 });
    const [rs] = (await env.client.replicaSets.list({ namespace: ns })).items;
    const pods = await podsOf(ns);
    expect(pods).toHaveLength(4);
    for (const pod of pods) {
      expect(pod.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': rs.metadata!.labels!['pod-template-hash'] });
      expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', name: rs.metadata?.name, controller: true });
    }
  });

  it('rolls a new image out pod by pod: never more than replicas + maxSurge pods, never fewer than replicas - maxUnavailable ready', async () => {
    const ns = await newNamespace();
    // 8 replicas with the default 25%: at most 10 pods, at least 6 ready, at every observed moment.
    await deployments(ns).create(web('web', 8));
    await rolledOut(ns, 'web');
    const seen: Array<{ pods: number; ready: number; images: string }> = [];
    const observer = observePods(ns, (pods) => {
      const ready = pods.filter(isReady).length;
      seen.push({ pods: pods.length, ready, images: [...new Set(pods.map(image))].sort().join(',') });
    });
    await setImage(ns, 'web', 'nginx:1.26');
    await rolledOut(ns, 'web');
    const snapshots = await observer.stop();

    expect(snapshots).toBeGreaterThan(5);
    expect(seen.some((s) => s.images === 'nginx:1.25,nginx:1.26')).toBe(true);
    for (const s of seen) {
      expect(s.pods).toBeLessThanOrEqual(10);
      expect(s.ready).toBeGreaterThanOrEqual(6);
    }
    const pods = await podsOf(ns);
    expect(pods.map(image)).toEqual(Array(8).fill('nginx:1.26'));
  });

  it('Recreate starts no new pod while an old one exists', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('batch', 3, { strategy: { type: 'Recreate' } }));
    await rolledOut(ns, 'batch');
    const mixed: string[] = [];
    const observer = observePods(ns, (pods) => {
      const images = new Set(pods.map(image));
      if (images.size > 1) mixed.push([...images].join(','));
    });
    await setImage(ns, 'batch', 'nginx:1.26');
    await rolledOut(ns, 'batch');
    await observer.stop();
    expect(mixed).toEqual([]);
    expect((await podsOf(ns)).map(image)).toEqual(Array(3).fill('nginx:1.26'));
  });

  it('times out a rollout whose pods never become ready, and rolls back to the old ReplicaSet', async () => {
    const ns = await newNamespace();
    broken.add('nginx:broken');
    await deployments(ns).create(web('web', 4, { progressDeadlineSeconds: 1 }));
    const before = await rolledOut(ns, 'web');
    const [first] = (await env.client.replicaSets.list({ namespace: ns })).items;

    await setImage(ns, 'web', 'nginx:broken');
    await eventually(async () => {
      const d = await deployments(ns).get('web');
      expect(d.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
      // maxUnavailable 1 of 4: three old pods keep serving.
      expect(d.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
    }, 10_000);
    expect((await podsOf(ns)).filter((p) => image(p) === 'nginx:1.25' && isReady(p)).length).toBeGreaterThanOrEqual(3);

    // kubectl rollout undo: the first revision's template, without its hash label.
    const template = structuredClone(first.spec.template);
    delete template.metadata!.labels!['pod-template-hash'];
    await deployments(ns).patch('web', [{ op: 'replace', path: '/spec/template', value: template }], 'json');
    const undone = await rolledOut(ns, 'web');
    expect(undone.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(before.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    const sets = (await env.client.replicaSets.list({ namespace: ns })).items;
    expect(sets).toHaveLength(2);
    expect(sets.find((rs) => rs.metadata?.uid === first.metadata?.uid)?.status).toMatchObject({ replicas: 4, readyReplicas: 4 });
    expect((await podsOf(ns)).map(image)).toEqual(Array(4).fill('nginx:1.25'));
  });

  it('scales pods up, down, to zero and back', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('web', 2));
    await rolledOut(ns, 'web');
    for (const replicas of [6, 1, 0, 3]) {
      await deployments(ns).patch('web', { spec: { replicas } }, 'merge');
      await rolledOut(ns, 'web');
      await eventually(async () => expect((await podsOf(ns)).filter(isReady)).toHaveLength(replicas));
    }
    expect((await env.client.replicaSets.list({ namespace: ns })).items).toHaveLength(1);
  });
});

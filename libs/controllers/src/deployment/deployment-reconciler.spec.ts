import 'reflect-metadata';
import type { Deployment, Pod, ReplicaSet } from '@svc/api';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { deploymentController } from './index';
import { computePodTemplateHash } from './pod-template-hash';
import { ReplicaSetStatusDriver } from './testing/replica-set-status-driver';

let env: TestEnvironment;
let running: RunningControllers;
const drivers: ReplicaSetStatusDriver[] = [];

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [deploymentController]);
});

afterEach(async () => {
  for (const driver of drivers.splice(0)) {
    await driver.stop();
    expect(driver.errors).toEqual([]);
  }
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

let namespaces = 0;
async function newNamespace(): Promise<string> {
  const name = `deploy-${++namespaces}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

function drive(namespace: string, options: ConstructorParameters<typeof ReplicaSetStatusDriver>[2] = {}): ReplicaSetStatusDriver {
  const driver = new ReplicaSetStatusDriver(env.client, namespace, options).start();
  drivers.push(driver);
  return driver;
}

function web(name: string, replicas: number, spec: Partial<Deployment['spec']> = {}, image = 'nginx:1.25'): Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
      ...spec,
    },
  };
}

const deployments = (namespace: string) => env.client.deployments.inNamespace(namespace);
const replicaSets = (namespace: string) => env.client.replicaSets.inNamespace(namespace);

async function replicaSetsOf(namespace: string, app: string): Promise<ReplicaSet[]> {
  return (await replicaSets(namespace).list({ labelSelector: `app=${app}` })).items;
}

function byRevision(list: ReplicaSet[]): Record<string, number> {
  return Object.fromEntries(list.map((rs) => [rs.metadata!.annotations!['deployment.kubernetes.io/revision'], rs.spec.replicas ?? 1]));
}

function condition(d: Deployment, type: string) {
  return d.status?.conditions?.find((c) => c.type === type);
}

/** What `kubectl rollout status` waits for. */
function rolledOut(d: Deployment): boolean {
  const s = d.status ?? {};
  const replicas = d.spec.replicas ?? 1;
  return (
    Number(d.metadata?.generation) <= (s.observedGeneration ?? 0) &&
    condition(d, 'Progressing')?.reason !== 'ProgressDeadlineExceeded' &&
    (s.updatedReplicas ?? 0) >= replicas &&
    (s.replicas ?? 0) <= (s.updatedReplicas ?? 0) &&
    (s.availableReplicas ?? 0) >= (s.updatedReplicas ?? 0)
  );
}

async function waitRolledOut(namespace: string, name: string, timeoutMs = 15_000): Promise<Deployment> {
  return eventually(async () => {
    const d = await deployments(namespace).get(name);
    expect(rolledOut(d)).toBe(true);
    expect(condition(d, 'Progressing')?.reason).toBe('NewReplicaSetAvailable');
    return d;
  }, timeoutMs);
}

async function setImage(namespace: string, name: string, image: string, cause?: string): Promise<void> {
  const patch: Record<string, unknown> = { spec: { template: { spec: { containers: [{ name: 'web', image }] } } } };
  if (cause) patch.metadata = { annotations: { 'kubernetes.io/change-cause': cause } };
  await deployments(namespace).patch(name, patch as never, 'strategic');
}

describe('the deployment controller', () => {
  it('creates a ReplicaSet named and labelled by the pod-template-hash, annotated and controlled by the Deployment', async () => {
    const ns = await newNamespace();
    const d = web('app', 3, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    d.metadata!.annotations = {
      'kubernetes.io/change-cause': 'first release',
      'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Deployment"}',
    };
    const created = await deployments(ns).create(d);
    drive(ns);

    const hash = computePodTemplateHash(created.spec.template);
    const rs = await eventually(() => replicaSets(ns).get(`app-${hash}`));
    expect(rs.metadata?.labels).toEqual({ app: 'app', 'pod-template-hash': hash });
    expect(rs.spec.selector).toEqual({ matchLabels: { app: 'app', 'pod-template-hash': hash } });
    expect(rs.spec.template.metadata?.labels).toEqual({ app: 'app', 'pod-template-hash': hash });
    expect(rs.spec.replicas).toBe(3);
    expect(rs.metadata?.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'app', uid: created.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(rs.metadata?.annotations).toEqual({
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
      'kubernetes.io/change-cause': 'first release',
    });

    const done = await waitRolledOut(ns, 'app');
    expect(done.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(done.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(condition(done, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
    expect(condition(done, 'Progressing')).toMatchObject({ status: 'True', message: `ReplicaSet "app-${hash}" has successfully progressed.` });

    const events = (await env.client.events.list({ namespace: ns })).items;
    expect(events.some((e) => e.reason === 'ScalingReplicaSet' && e.message === `Scaled up replica set app-${hash} from 0 to 3`)).toBe(true);
  });

  it.each([
    [10, 3, 2],
    [10, '25%', '25%'],
    [6, 0, 1],
    [5, 1, 0],
  ] as const)(
    'rolls %p replicas out with maxSurge %p and maxUnavailable %p, within both bounds at every observed step',
    async (replicas, maxSurge, maxUnavailable) => {
      const ns = await newNamespace();
      const spec = { strategy: { type: 'RollingUpdate' as const, rollingUpdate: { maxSurge, maxUnavailable } } };
      await deployments(ns).create(web('roll', replicas, spec));
      let rolling = false;
      const samples: Array<{ total: number; pods: number; available: number; sizes: number[] }> = [];
      drive(ns, {
        onSample: (list) => {
          if (!rolling) return;
          const total = list.reduce((n, rs) => n + (rs.spec.replicas ?? 1), 0);
          const pods = list.reduce((n, rs) => n + Math.max(rs.spec.replicas ?? 1, rs.status?.replicas ?? 0), 0);
          const available = list.reduce((n, rs) => n + Math.min(rs.spec.replicas ?? 1, rs.status?.availableReplicas ?? 0), 0);
          samples.push({ total, pods, available, sizes: list.map((rs) => rs.spec.replicas ?? 1) });
        },
      });
      await waitRolledOut(ns, 'roll');

      rolling = true;
      await setImage(ns, 'roll', 'nginx:1.26');
      const done = await waitRolledOut(ns, 'roll', 25_000);
      rolling = false;

      const surge = typeof maxSurge === 'number' ? maxSurge : Math.ceil((replicas * parseInt(maxSurge, 10)) / 100);
      const unavailable = typeof maxUnavailable === 'number' ? maxUnavailable : Math.floor((replicas * parseInt(maxUnavailable, 10)) / 100);
      expect(samples.length).toBeGreaterThan(3);
      expect(new Set(samples.map((s) => s.sizes.join('/'))).size).toBeGreaterThan(2);
      for (const sample of samples) {
        expect(sample.total).toBeLessThanOrEqual(replicas + surge);
        expect(sample.pods).toBeLessThanOrEqual(replicas + surge);
        expect(sample.available).toBeGreaterThanOrEqual(replicas - unavailable);
      }
      expect(byRevision(await replicaSetsOf(ns, 'roll'))).toEqual({ '1': 0, '2': replicas });
      expect(done.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
      expect(done.status).toMatchObject({ replicas, updatedReplicas: replicas, availableReplicas: replicas, observedGeneration: 2 });
    },
  );

  it('Recreate scales the old ReplicaSet to zero and starts the new one only once the old pods are gone', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('batch', 2, { strategy: { type: 'Recreate' } }));
    drive(ns);
    await waitRolledOut(ns, 'batch');
    const [old] = await replicaSetsOf(ns, 'batch');

    // A pod of the old ReplicaSet that keeps running until it is deleted.
    const pod: Pod = {
      metadata: {
        name: 'batch-old-pod',
        labels: { ...old.spec.template.metadata?.labels },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: old.metadata!.name!, uid: old.metadata!.uid!, controller: true }],
      },
      spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'nginx:1.25' }] },
    };
    const created = await env.client.pods.create(pod, { namespace: ns });
    await env.client.pods.patchStatus('batch-old-pod', { status: { phase: 'Running' } }, 'merge', { namespace: ns });

    await setImage(ns, 'batch', 'nginx:1.26');
    await eventually(async () => {
      const d = await deployments(ns).get('batch');
      expect(d.status?.observedGeneration).toBe(2);
      const list = await replicaSetsOf(ns, 'batch');
      expect(list.map((rs) => [rs.metadata!.name, rs.spec.replicas, rs.status?.replicas ?? 0])).toEqual([[old.metadata!.name, 0, 0]]);
    });
    // The old ReplicaSet reports no replicas, but its pod still runs: no new ReplicaSet yet.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await replicaSetsOf(ns, 'batch')).length).toBe(1);

    await env.client.pods.delete(created.metadata!.name!, { namespace: ns, gracePeriodSeconds: 0 });
    await eventually(async () => expect(byRevision(await replicaSetsOf(ns, 'batch'))).toEqual({ '1': 0, '2': 2 }));
    await waitRolledOut(ns, 'batch');
  });

  it('holds a paused rollout (scaling still applies) and continues it on resume', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('hold', 2));
    drive(ns);
    await waitRolledOut(ns, 'hold');

    await deployments(ns).patch('hold', { spec: { paused: true } }, 'merge');
    await eventually(async () =>
      expect(condition(await deployments(ns).get('hold'), 'Progressing')).toMatchObject({ status: 'Unknown', reason: 'DeploymentPaused' }),
    );
    await setImage(ns, 'hold', 'nginx:1.26');
    await deployments(ns).patch('hold', { spec: { replicas: 4 } }, 'merge');
    await eventually(async () => {
      const d = await deployments(ns).get('hold');
      expect(d.status?.observedGeneration).toBe(d.metadata?.generation);
      expect(byRevision(await replicaSetsOf(ns, 'hold'))).toEqual({ '1': 4 });
    });

    await deployments(ns).patch('hold', { spec: { paused: false } }, 'merge');
    const done = await waitRolledOut(ns, 'hold');
    expect(byRevision(await replicaSetsOf(ns, 'hold'))).toEqual({ '1': 0, '2': 4 });
    expect(done.status?.availableReplicas).toBe(4);
  });

  it('keeps revisionHistoryLimit old ReplicaSets, deleting the lowest revisions', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('hist', 1, { revisionHistoryLimit: 1 }));
    drive(ns);
    await waitRolledOut(ns, 'hist');
    for (const image of ['nginx:1.26', 'nginx:1.27', 'nginx:1.28']) {
      await setImage(ns, 'hist', image);
      await waitRolledOut(ns, 'hist');
    }
    await eventually(async () => expect(byRevision(await replicaSetsOf(ns, 'hist'))).toEqual({ '3': 0, '4': 1 }));
  });

  it('makes the old ReplicaSet new again on rollback (kubectl rollout undo), with the next revision', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('undo', 2));
    drive(ns);
    await waitRolledOut(ns, 'undo');
    await setImage(ns, 'undo', 'nginx:1.26', 'upgrade');
    await waitRolledOut(ns, 'undo');
    const first = (await replicaSetsOf(ns, 'undo')).find((rs) => rs.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '1')!;

    // What kubectl rollout undo sends: revision 1's template without its hash label.
    const template = structuredClone(first.spec.template);
    delete template.metadata!.labels!['pod-template-hash'];
    await deployments(ns).patch('undo', [{ op: 'replace', path: '/spec/template', value: template }], 'json');

    const done = await waitRolledOut(ns, 'undo');
    const list = await replicaSetsOf(ns, 'undo');
    expect(list.length).toBe(2);
    const again = list.find((rs) => rs.metadata?.uid === first.metadata?.uid)!;
    expect(again.spec.replicas).toBe(2);
    expect(again.metadata?.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1' });
    expect(done.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(byRevision(list)).toEqual({ '2': 0, '3': 2 });
  });

  it('reports ProgressDeadlineExceeded when the new pods never become available', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('stuck', 2, { progressDeadlineSeconds: 1 }));
    drive(ns, { availableAtMost: (rs) => (rs.spec.template.spec?.containers[0].image === 'broken' ? 0 : Infinity) });
    await waitRolledOut(ns, 'stuck');

    await setImage(ns, 'stuck', 'broken');
    const d = await eventually(async () => {
      const current = await deployments(ns).get('stuck');
      expect(condition(current, 'Progressing')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
      return current;
    }, 10_000);
    // maxUnavailable 25% of 2 rounds to 0: the old pods keep the Deployment available.
    expect(condition(d, 'Available')).toMatchObject({ status: 'True' });
    expect(byRevision(await replicaSetsOf(ns, 'stuck'))).toEqual({ '1': 2, '2': 1 });
  });

  it('scales up, down and to zero', async () => {
    const ns = await newNamespace();
    await deployments(ns).create(web('size', 2));
    drive(ns, { step: 5 });
    await waitRolledOut(ns, 'size');
    for (const replicas of [5, 1, 0, 3]) {
      await deployments(ns).patch('size', { spec: { replicas } }, 'merge');
      await eventually(async () => {
        expect(byRevision(await replicaSetsOf(ns, 'size'))).toEqual({ '1': replicas });
        const d = await deployments(ns).get('size');
        expect(rolledOut(d)).toBe(true);
        expect(d.status?.availableReplicas ?? 0).toBe(replicas);
      });
    }
  });

  it('scales every active ReplicaSet in proportion when scaled mid-rollout', async () => {
    const ns = await newNamespace();
    const spec = { strategy: { type: 'RollingUpdate' as const, rollingUpdate: { maxSurge: 3, maxUnavailable: 0 } } };
    await deployments(ns).create(web('grow', 10, spec));
    drive(ns, { step: 10, availableAtMost: (rs) => (rs.spec.template.spec?.containers[0].image === 'nginx:1.26' ? 0 : Infinity) });
    await waitRolledOut(ns, 'grow');

    await setImage(ns, 'grow', 'nginx:1.26');
    await eventually(async () => expect(byRevision(await replicaSetsOf(ns, 'grow'))).toEqual({ '1': 10, '2': 3 }));
    await deployments(ns).patch('grow', { spec: { replicas: 20 } }, 'merge');
    // 13 pods for 10 (+3 surge) become 23 for 20: each ReplicaSet keeps its share.
    await eventually(async () => {
      const list = await replicaSetsOf(ns, 'grow');
      expect(byRevision(list)).toEqual({ '1': 18, '2': 5 });
      for (const rs of list)
        expect(rs.metadata?.annotations).toMatchObject({ 'deployment.kubernetes.io/desired-replicas': '20', 'deployment.kubernetes.io/max-replicas': '23' });
    });
  });

  it('adopts a matching orphan ReplicaSet, releases one it no longer selects, and never touches one another controller owns', async () => {
    const ns = await newNamespace();
    const d = web('adopt', 2);
    // An orphan with the Deployment's template: adopted and used as its ReplicaSet.
    const orphanTemplate = structuredClone(d.spec.template);
    orphanTemplate.metadata!.labels = { app: 'adopt', 'pod-template-hash': 'handmade' };
    await replicaSets(ns).create({
      metadata: { name: 'adopt-handmade', labels: { app: 'adopt', 'pod-template-hash': 'handmade' } },
      spec: { replicas: 1, selector: { matchLabels: { app: 'adopt', 'pod-template-hash': 'handmade' } }, template: orphanTemplate },
    });
    // Selected, but controlled by something else.
    const foreignTemplate = web('adopt', 1, {}, 'redis:7').spec.template;
    foreignTemplate.metadata!.labels = { app: 'adopt', owner: 'other' };
    await replicaSets(ns).create({
      metadata: {
        name: 'adopt-foreign',
        labels: { app: 'adopt', owner: 'other' },
        ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Other', name: 'x', uid: 'other-uid', controller: true }],
      },
      spec: { replicas: 1, selector: { matchLabels: { app: 'adopt', owner: 'other' } }, template: foreignTemplate },
    });

    const created = await deployments(ns).create(d);
    drive(ns);
    await waitRolledOut(ns, 'adopt');
    const adopted = await replicaSets(ns).get('adopt-handmade');
    expect(adopted.metadata?.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'adopt', uid: created.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(adopted.spec.replicas).toBe(2);
    expect(adopted.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    const foreign = await replicaSets(ns).get('adopt-foreign');
    expect(foreign.spec.replicas).toBe(1);
    expect(foreign.metadata?.ownerReferences?.map((r) => r.uid)).toEqual(['other-uid']);
    expect(foreign.metadata?.annotations).toBeUndefined();
    expect((await replicaSetsOf(ns, 'adopt')).length).toBe(2);

    // Relabelled out of the selector: released, and a new ReplicaSet takes its place.
    await replicaSets(ns).patch('adopt-handmade', { metadata: { labels: { app: 'elsewhere' } } }, 'merge');
    await eventually(async () => expect((await replicaSets(ns).get('adopt-handmade')).metadata?.ownerReferences ?? []).toEqual([]));
    await eventually(async () => {
      const list = (await replicaSetsOf(ns, 'adopt')).filter((rs) => rs.metadata?.name !== 'adopt-foreign');
      expect(list.map((rs) => rs.spec.replicas)).toEqual([2]);
    });
  });

  it('resolves a pod-template-hash collision by bumping status.collisionCount', async () => {
    const ns = await newNamespace();
    const paused = await deployments(ns).create(web('clash', 1, { paused: true }));
    const hash = computePodTemplateHash(paused.spec.template);
    // Another ReplicaSet already holds the name the Deployment's hash gives.
    await replicaSets(ns).create({
      metadata: { name: `clash-${hash}`, labels: { other: 'yes' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { other: 'yes' } },
        template: { metadata: { labels: { other: 'yes' } }, spec: { containers: [{ name: 'x', image: 'busybox' }] } },
      },
    });
    drive(ns);
    await deployments(ns).patch('clash', { spec: { paused: false } }, 'merge');

    const done = await waitRolledOut(ns, 'clash');
    expect(done.status?.collisionCount).toBe(1);
    const [rs] = await replicaSetsOf(ns, 'clash');
    expect(rs.metadata?.name).toBe(`clash-${computePodTemplateHash(paused.spec.template, 1)}`);
    expect((await replicaSets(ns).get(`clash-${hash}`)).metadata?.ownerReferences).toBeUndefined();
  });

  it('only syncs the status of a Deployment being deleted', async () => {
    const ns = await newNamespace();
    const d = web('leaving', 2);
    d.metadata!.finalizers = ['example.com/hold'];
    await deployments(ns).create(d);
    drive(ns);
    await waitRolledOut(ns, 'leaving');

    await deployments(ns).delete('leaving');
    await deployments(ns).patch('leaving', { spec: { replicas: 5 } }, 'merge');
    await eventually(async () => expect((await deployments(ns).get('leaving')).status?.observedGeneration).toBe(2));
    expect(byRevision(await replicaSetsOf(ns, 'leaving'))).toEqual({ '1': 2 });
    await deployments(ns).patch('leaving', { metadata: { finalizers: null } }, 'merge');
  });
});

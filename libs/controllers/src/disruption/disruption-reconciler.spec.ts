import 'reflect-metadata';
import type { Deployment, OwnerReference, Pod, PodDisruptionBudget, ReplicaSet } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { BUILTIN_RESOURCES } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { CONTROLLER_METRIC_NAMES } from '@svc/runtime';
import { eventually } from '@svc/runtime/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { disruptionController } from '.';

let env: TestEnvironment;
let running: RunningControllers;
let namespaceCount = 0;

/** A fresh namespace per test, so that no test sees another's pods or budgets. */
async function freshNamespace(): Promise<string> {
  const name = `pdb-${++namespaceCount}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

const metaTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const LABELS = { app: 'web' };
const TEMPLATE = { metadata: { labels: LABELS }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

function controlledBy(object: { apiVersion?: string; kind?: string; metadata?: { name?: string; uid?: string } }): OwnerReference[] {
  return [{ apiVersion: object.apiVersion!, kind: object.kind!, name: object.metadata!.name!, uid: object.metadata!.uid!, controller: true }];
}

async function createDeployment(namespace: string, name: string, replicas: number): Promise<Deployment> {
  const d = await env.client.deployments.create({ metadata: { name, namespace }, spec: { replicas, selector: { matchLabels: LABELS }, template: TEMPLATE } });
  return { ...d, apiVersion: 'apps/v1', kind: 'Deployment' };
}

async function createReplicaSet(namespace: string, name: string, replicas: number, owner?: Deployment): Promise<ReplicaSet> {
  const rs = await env.client.replicaSets.create({
    metadata: { name, namespace, ...(owner ? { ownerReferences: controlledBy(owner) } : {}) },
    spec: { replicas, selector: { matchLabels: LABELS }, template: TEMPLATE },
  });
  return { ...rs, apiVersion: 'apps/v1', kind: 'ReplicaSet' };
}

async function createPod(namespace: string, name: string, options: { owners?: OwnerReference[]; ready?: boolean } = {}): Promise<Pod> {
  await env.client.pods.create({
    metadata: { name, namespace, labels: LABELS, ...(options.owners ? { ownerReferences: options.owners } : {}) },
    spec: TEMPLATE.spec,
  });
  return setReady(namespace, name, options.ready ?? true);
}

/** What a node agent reports. */
async function setReady(namespace: string, name: string, ready: boolean): Promise<Pod> {
  return env.client.pods.patchStatus(
    name,
    { status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: metaTime(Date.now()) }] } },
    'merge',
    { namespace },
  );
}

async function createBudget(namespace: string, name: string, spec: PodDisruptionBudget['spec']): Promise<PodDisruptionBudget> {
  return env.client.podDisruptionBudgets.create({ metadata: { name, namespace }, spec: { selector: { matchLabels: LABELS }, ...spec } });
}

const getBudget = (namespace: string, name: string) => env.client.podDisruptionBudgets.get(name, { namespace });

async function podGoneOrDeleting(namespace: string, name: string): Promise<boolean> {
  try {
    return (await env.client.pods.get(name, { namespace })).metadata?.deletionTimestamp !== undefined;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

async function successfulSyncs(): Promise<number> {
  const total = await running.manager.registry.getSingleMetric(CONTROLLER_METRIC_NAMES.reconcileTotal)?.get();
  return (total?.values ?? []).filter((v) => v.labels.controller === 'disruption' && v.labels.result === 'success').reduce((n, v) => n + v.value, 0);
}

async function warnings(namespace: string, reason: string): Promise<string[]> {
  const events = await env.client.events.list({ namespace });
  return events.items.filter((e) => e.reason === reason && e.type === 'Warning').map((e) => e.message ?? '');
}

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [disruptionController]);
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

describe('the disruption controller', () => {
  it('with an integer minAvailable expects the selected pods and allows what the healthy ones exceed it by', async () => {
    const ns = await freshNamespace();
    await createPod(ns, 'a');
    await createPod(ns, 'b');
    await createPod(ns, 'c', { ready: false });
    await env.client.pods.create({ metadata: { name: 'other', namespace: ns, labels: { app: 'db' } }, spec: TEMPLATE.spec });
    const created = await createBudget(ns, 'web', { minAvailable: 1 });

    const first = await eventually(async () => {
      const b = await getBudget(ns, 'web');
      expect(b.status).toMatchObject({
        observedGeneration: created.metadata?.generation,
        expectedPods: 3,
        desiredHealthy: 1,
        currentHealthy: 2,
        disruptionsAllowed: 1,
      });
      return b;
    });
    const condition = first.status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
    expect(condition).toMatchObject({ status: 'True', reason: 'SufficientPods', observedGeneration: created.metadata?.generation });

    await setReady(ns, 'c', true);
    await eventually(async () => expect((await getBudget(ns, 'web')).status).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 2 }));
    // Still True: the transition time stays.
    expect((await getBudget(ns, 'web')).status?.conditions?.[0].lastTransitionTime).toBe(condition?.lastTransitionTime);

    // A new generation is observed; none spare is False, InsufficientPods.
    const raised = await env.client.podDisruptionBudgets.patch('web', { spec: { minAvailable: 3 } }, 'merge', { namespace: ns });
    await eventually(async () => {
      const b = await getBudget(ns, 'web');
      expect(b.status).toMatchObject({ observedGeneration: raised.metadata?.generation, desiredHealthy: 3, disruptionsAllowed: 0 });
      expect(b.status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InsufficientPods', observedGeneration: raised.metadata?.generation });
    });
  }, 30_000);

  it("with maxUnavailable expects the Deployment's replicas for pods of a ReplicaSet it controls", async () => {
    const ns = await freshNamespace();
    const deployment = await createDeployment(ns, 'web', 5);
    const rs = await createReplicaSet(ns, 'web-1', 3, deployment);
    for (const name of ['a', 'b', 'c']) await createPod(ns, name, { owners: controlledBy(rs) });
    await createBudget(ns, 'web', { maxUnavailable: 1 });
    await eventually(async () => {
      const b = await getBudget(ns, 'web');
      expect(b.status).toMatchObject({ expectedPods: 5, desiredHealthy: 4, currentHealthy: 3, disruptionsAllowed: 0 });
      expect(b.status?.conditions?.[0]).toMatchObject({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' });
    });

    await env.client.deployments.patch('web', { spec: { replicas: 3 } }, 'merge', { namespace: ns });
    // The controller follows pods, not their controllers (as Kubernetes does): a pod change shows the new scale.
    await env.client.pods.patch('a', { metadata: { labels: { ...LABELS, touched: 'yes' } } }, 'merge', { namespace: ns });
    await eventually(async () => expect((await getBudget(ns, 'web')).status).toMatchObject({ expectedPods: 3, desiredHealthy: 2, disruptionsAllowed: 1 }));
  }, 30_000);

  it("with a percentage counts the ReplicaSet's replicas and rounds up", async () => {
    const ns = await freshNamespace();
    const rs = await createReplicaSet(ns, 'web', 5);
    for (const name of ['a', 'b', 'c', 'd', 'e']) await createPod(ns, name, { owners: controlledBy(rs) });
    await createBudget(ns, 'min', { minAvailable: '50%' });
    await createBudget(ns, 'max', { maxUnavailable: '30%' });
    // 50% of 5 is 2.5: 3 must stay. 30% of 5 is 1.5: 2 may go.
    await eventually(async () =>
      expect((await getBudget(ns, 'min')).status).toMatchObject({ expectedPods: 5, desiredHealthy: 3, currentHealthy: 5, disruptionsAllowed: 2 }),
    );
    await eventually(async () =>
      expect((await getBudget(ns, 'max')).status).toMatchObject({ expectedPods: 5, desiredHealthy: 3, currentHealthy: 5, disruptionsAllowed: 2 }),
    );
  }, 30_000);

  it('reads the scale of a controller of another kind, a custom resource included, and fails safe on one without a scale', async () => {
    const ns = await freshNamespace();
    const crds = env.client.resource(BUILTIN_RESOURCES.customResourceDefinitions);
    const version = (name: string, scale: boolean) => ({
      name,
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      ...(scale ? { subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } } : {}),
    });
    for (const [plural, kind, scale] of [
      ['flocks', 'Flock', true],
      ['herds', 'Herd', false],
    ] as const) {
      await crds.create({
        metadata: { name: `${plural}.pdb.example.com` },
        spec: {
          group: 'pdb.example.com',
          scope: 'Namespaced',
          names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
          versions: [version('v1', scale)],
        },
      });
      await eventually(async () =>
        expect((await crds.get(`${plural}.pdb.example.com`)).status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')).toBe(true),
      );
    }
    const flocks = env.client.dynamic({ group: 'pdb.example.com', version: 'v1', resource: 'flocks', namespaced: true, kind: 'Flock' });
    const flock = await flocks.create(
      { apiVersion: 'pdb.example.com/v1', kind: 'Flock', metadata: { name: 'f', namespace: ns }, spec: { replicas: 4 } },
      { namespace: ns },
    );
    for (const name of ['a', 'b']) await createPod(ns, name, { owners: controlledBy({ ...flock, apiVersion: 'pdb.example.com/v1', kind: 'Flock' }) });
    await createBudget(ns, 'web', { maxUnavailable: '25%' });
    await eventually(async () =>
      expect((await getBudget(ns, 'web')).status).toMatchObject({ expectedPods: 4, desiredHealthy: 3, currentHealthy: 2, disruptionsAllowed: 0 }),
    );

    const herds = env.client.dynamic({ group: 'pdb.example.com', version: 'v1', resource: 'herds', namespaced: true, kind: 'Herd' });
    const herd = await herds.create({ apiVersion: 'pdb.example.com/v1', kind: 'Herd', metadata: { name: 'h', namespace: ns } }, { namespace: ns });
    await createPod(ns, 'c', { owners: controlledBy({ ...herd, apiVersion: 'pdb.example.com/v1', kind: 'Herd' }) });
    await eventually(async () =>
      expect((await getBudget(ns, 'web')).status?.conditions?.[0]).toMatchObject({
        reason: 'SyncFailed',
        message: 'herds.pdb.example.com does not implement the scale subresource',
      }),
    );
  }, 30_000);

  it('fails safe when a pod names a controller it cannot find, and sets pods without a controller aside', async () => {
    const ns = await freshNamespace();
    await createPod(ns, 'bare');
    await createBudget(ns, 'web', { maxUnavailable: 1 });
    // A pod without a controller is not counted by scale (Kubernetes reports it with an event).
    await eventually(async () => expect((await getBudget(ns, 'web')).status).toMatchObject({ expectedPods: 0, currentHealthy: 1, disruptionsAllowed: 0 }));
    await eventually(async () => expect((await warnings(ns, 'UnmanagedPods'))[0]).toContain('were found to be unmanaged'));

    await createPod(ns, 'lost', {
      owners: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'nowhere', uid: '6a0c3c3e-0000-4000-8000-000000000000', controller: true }],
    });
    await eventually(async () => {
      const b = await getBudget(ns, 'web');
      expect(b.status?.disruptionsAllowed).toBe(0);
      expect(b.status?.conditions?.find((c) => c.type === 'DisruptionAllowed')).toMatchObject({
        status: 'False',
        reason: 'SyncFailed',
        message: 'found no controllers for pod "lost"',
      });
    });
    await eventually(async () =>
      expect(await warnings(ns, 'CalculateExpectedPodCountFailed')).toEqual([
        'Failed to calculate the number of expected pods: found no controllers for pod "lost"',
      ]),
    );
  }, 30_000);

  it('counts pods whose eviction was granted as disrupted until they are deleted or the time runs out', async () => {
    const ns = await freshNamespace();
    for (const name of ['a', 'b', 'c']) await createPod(ns, name);
    await createBudget(ns, 'web', { minAvailable: 1 });
    await eventually(async () => expect((await getBudget(ns, 'web')).status).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 2 }));

    // What the API server's eviction writes: `a` granted 110 s ago (10 s left), `b` just now.
    const aAt = metaTime(Date.now() - 110_000);
    const bAt = metaTime(Date.now());
    await env.client.podDisruptionBudgets.patchStatus('web', { status: { disruptionsAllowed: 0, disruptedPods: { a: aAt, b: bAt } } }, 'merge', {
      namespace: ns,
    });
    await eventually(async () =>
      expect((await getBudget(ns, 'web')).status).toMatchObject({ currentHealthy: 1, disruptionsAllowed: 0, disruptedPods: { a: aAt, b: bAt } }),
    );

    await env.client.pods.delete('b', { namespace: ns });
    await eventually(async () => expect(await podGoneOrDeleting(ns, 'b')).toBe(true));
    await eventually(async () => expect((await getBudget(ns, 'web')).status).toMatchObject({ currentHealthy: 1, disruptedPods: { a: aAt } }));
    expect((await getBudget(ns, 'web')).status?.disruptedPods).toEqual({ a: aAt });

    // `a` is still there when its time runs out: it counts as healthy again, without any other change.
    await eventually(async () => {
      const status = (await getBudget(ns, 'web')).status;
      expect(status).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 1 });
      expect(status?.disruptedPods).toBeUndefined();
    }, 30_000);
    await eventually(async () => expect((await warnings(ns, 'NotDeleted'))[0]).toBe(`Pod was expected by PDB ${ns}/web to be deleted but it wasn't`));
  }, 60_000);

  it("sets back a DisruptionTarget condition left True two minutes on a pod that was not deleted, but not the node agent's", async () => {
    const ns = await freshNamespace();
    const mark = async (name: string, reason: string, sinceMs: number) => {
      await env.client.pods.create({ metadata: { name, namespace: ns }, spec: TEMPLATE.spec });
      await env.client.pods.patchStatus(
        name,
        { status: { conditions: [{ type: 'DisruptionTarget', status: 'True', reason, message: 'm', lastTransitionTime: metaTime(Date.now() - sinceMs) }] } },
        'merge',
        { namespace: ns },
      );
    };
    const condition = async (name: string) =>
      (await env.client.pods.get(name, { namespace: ns })).status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    await mark('stale', 'EvictionByEvictionAPI', 125_000);
    // Stale in about 10 s, without any other change to wake it.
    await mark('soon', 'EvictionByEvictionAPI', 110_000);
    await mark('kubelet', 'TerminationByKubelet', 125_000);
    await eventually(async () => expect(await condition('stale')).toMatchObject({ status: 'False' }));
    expect((await condition('stale'))?.reason).toBeUndefined();
    expect(await condition('soon')).toMatchObject({ status: 'True' });
    await eventually(async () => expect(await condition('soon')).toMatchObject({ status: 'False' }), 30_000);
    expect(await condition('kubelet')).toMatchObject({ status: 'True', reason: 'TerminationByKubelet' });
  }, 45_000);

  it('does not write the status again when nothing in it changed', async () => {
    const ns = await freshNamespace();
    await createPod(ns, 'a');
    await createPod(ns, 'b');
    await createBudget(ns, 'web', { minAvailable: 1 });
    await eventually(async () => expect((await getBudget(ns, 'web')).status).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 1 }));

    // A metadata change of the budget and an unrelated pod change both make a sync with nothing to write.
    let before = await successfulSyncs();
    const annotated = await env.client.podDisruptionBudgets.patch('web', { metadata: { annotations: { note: 'x' } } }, 'merge', { namespace: ns });
    await eventually(async () => expect(await successfulSyncs()).toBeGreaterThan(before));
    before = await successfulSyncs();
    await env.client.pods.patch('a', { metadata: { labels: { ...LABELS, extra: 'y' } } }, 'merge', { namespace: ns });
    await eventually(async () => expect(await successfulSyncs()).toBeGreaterThan(before));
    expect((await getBudget(ns, 'web')).metadata?.resourceVersion).toBe(annotated.metadata?.resourceVersion);
  }, 30_000);
});

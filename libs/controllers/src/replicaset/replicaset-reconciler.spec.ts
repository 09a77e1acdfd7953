import 'reflect-metadata';
import type { Pod, ReplicaSet } from '@svc/api';
import { isNotFound } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { replicaSetController } from './index';

let env: TestEnvironment;
let running: RunningControllers;
let nsCount = 0;

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [replicaSetController]);
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

async function newNamespace(): Promise<string> {
  const name = `rs-test-${++nsCount}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

function replicaSet(namespace: string, name: string, replicas: number, extra: Partial<ReplicaSet['spec']> = {}, meta: ReplicaSet['metadata'] = {}): ReplicaSet {
  return {
    metadata: { name, namespace, ...meta },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, tier: 'web' }, annotations: { 'example.com/note': 'from-template' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
      ...extra,
    },
  };
}

/** The pods `rs` controls, as the server lists them (active or not). */
async function podsOf(rs: ReplicaSet): Promise<Pod[]> {
  const list = await env.client.pods.listAll({ namespace: rs.metadata!.namespace });
  return list.items.filter((p) => p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === rs.metadata!.uid));
}

async function getRs(namespace: string, name: string): Promise<ReplicaSet> {
  return env.client.replicaSets.get(name, { namespace });
}

/** A node agent's report that the pod runs and is ready since `since`. */
async function markReady(pod: Pod, since = new Date()): Promise<void> {
  await env.client.pods.patchStatus(
    pod.metadata!.name!,
    {
      status: {
        phase: 'Running',
        podIP: '10.0.0.1',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since.toISOString().replace(/\.\d{3}Z$/, 'Z') }],
      },
    },
    'merge',
    { namespace: pod.metadata!.namespace },
  );
}

describe('the ReplicaSet controller', () => {
  it('creates spec.replicas pods from the template, controlled by the ReplicaSet, and reports them', async () => {
    const ns = await newNamespace();
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'web', 3));

    const pods = await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(3);
      return found;
    });
    for (const pod of pods) {
      expect(pod.metadata?.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(pod.metadata?.labels).toEqual({ app: 'web', tier: 'web' });
      expect(pod.metadata?.annotations).toEqual({ 'example.com/note': 'from-template' });
      expect(pod.metadata?.ownerReferences).toEqual([
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata!.uid, controller: true, blockOwnerDeletion: true },
      ]);
      expect(pod.spec.containers[0].image).toBe('nginx');
    }
    await eventually(async () =>
      expect((await getRs(ns, 'web')).status).toEqual({
        replicas: 3,
        fullyLabeledReplicas: 3,
        readyReplicas: 0,
        availableReplicas: 0,
        terminatingReplicas: 0,
        observedGeneration: 1,
      }),
    );
    const events = await env.client.events.listAll({ namespace: ns });
    expect(events.items.filter((e) => e.reason === 'SuccessfulCreate' && e.involvedObject?.name === 'web')).toHaveLength(3);
  });

  it('defaults to one replica', async () => {
    const ns = await newNamespace();
    const spec = replicaSet(ns, 'single', 0);
    delete spec.spec.replicas;
    const rs = await env.client.replicaSets.create(spec);
    await eventually(async () => expect(await podsOf(rs)).toHaveLength(1));
  });

  it('scales up, down (not-ready pods first, then those ready for less time) and to zero', async () => {
    const ns = await newNamespace();
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'scale', 2));
    await eventually(async () => expect(await podsOf(rs)).toHaveLength(2));

    await env.client.replicaSets.patch('scale', { spec: { replicas: 5 } }, 'merge', { namespace: ns });
    const five = await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(5);
      return found;
    });

    const [longReady, newlyReady, ...notReady] = five;
    await markReady(longReady, new Date(Date.now() - 3_600_000));
    await markReady(newlyReady);
    await eventually(async () => expect((await getRs(ns, 'scale')).status?.readyReplicas).toBe(2));

    await env.client.replicaSets.patch('scale', { spec: { replicas: 2 } }, 'merge', { namespace: ns });
    const keep = [longReady, newlyReady].map((p) => p.metadata?.name).sort();
    await eventually(async () => expect((await podsOf(rs)).map((p) => p.metadata?.name).sort()).toEqual(keep));
    expect(notReady).toHaveLength(3);

    await env.client.replicaSets.patch('scale', { spec: { replicas: 1 } }, 'merge', { namespace: ns });
    await eventually(async () => expect((await podsOf(rs)).map((p) => p.metadata?.name)).toEqual([longReady.metadata?.name]));

    await env.client.replicaSets.patch('scale', { spec: { replicas: 0 } }, 'merge', { namespace: ns });
    await eventually(async () => expect(await podsOf(rs)).toHaveLength(0));
    await eventually(async () => {
      const current = await getRs(ns, 'scale');
      expect(current.status).toMatchObject({ replicas: 0, readyReplicas: 0, availableReplicas: 0, observedGeneration: current.metadata?.generation });
    });
  });

  it('counts a pod in its grace period as terminating, not as a replica, and does not replace it twice', async () => {
    const ns = await newNamespace();
    const spec = replicaSet(ns, 'graceful', 2);
    // Bound to a node: deletion waits for a node agent (there is none), so the pod stays Terminating.
    spec.spec.template.spec.nodeName = 'node-1';
    const rs = await env.client.replicaSets.create(spec);
    const pods = await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(2);
      return found;
    });
    await env.client.pods.delete(pods[0].metadata!.name!, { namespace: ns });
    await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(3);
      expect(found.filter((p) => p.metadata?.deletionTimestamp)).toHaveLength(1);
      expect((await getRs(ns, 'graceful')).status).toMatchObject({ replicas: 2, terminatingReplicas: 1 });
    });

    await env.client.replicaSets.patch('graceful', { spec: { replicas: 1 } }, 'merge', { namespace: ns });
    await eventually(async () => {
      const found = await podsOf(rs);
      expect(found.filter((p) => !p.metadata?.deletionTimestamp)).toHaveLength(1);
      expect((await getRs(ns, 'graceful')).status).toMatchObject({ replicas: 1, terminatingReplicas: 2 });
    });
    expect(await podsOf(rs)).toHaveLength(3);
  });

  it('replaces a pod deleted by hand', async () => {
    const ns = await newNamespace();
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'heal', 2));
    const before = await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(2);
      return found;
    });
    await env.client.pods.delete(before[0].metadata!.name!, { namespace: ns });
    await eventually(async () => {
      const names = (await podsOf(rs)).map((p) => p.metadata?.name);
      expect(names).toHaveLength(2);
      expect(names).not.toContain(before[0].metadata?.name);
      expect(names).toContain(before[1].metadata?.name);
    });
  });

  it('adopts a matching orphan, releases a pod relabelled out of its selector, and leaves pods of other controllers alone', async () => {
    const ns = await newNamespace();
    const podSpec = { containers: [{ name: 'c', image: 'nginx' }] };
    const orphan = await env.client.pods.create({ metadata: { name: 'orphan', namespace: ns, labels: { app: 'adopt' } }, spec: podSpec });
    const foreign = await env.client.pods.create({
      metadata: {
        name: 'foreign',
        namespace: ns,
        labels: { app: 'adopt' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'other', uid: '00000000-0000-0000-0000-000000000001', controller: true }],
      },
      spec: podSpec,
    });

    const rs = await env.client.replicaSets.create(replicaSet(ns, 'adopt', 2));
    const owned = await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(2);
      expect(found.map((p) => p.metadata?.name)).toContain('orphan');
      return found;
    });
    const adopted = owned.find((p) => p.metadata?.name === 'orphan')!;
    expect(adopted.metadata?.uid).toBe(orphan.metadata?.uid);
    expect(adopted.metadata?.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'adopt', uid: rs.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect((await env.client.pods.get('foreign', { namespace: ns })).metadata).toEqual(foreign.metadata);

    // Relabelled out of the selector: released (no longer controlled), and replaced.
    await env.client.pods.patch('orphan', { metadata: { labels: { app: 'gone' } } }, 'merge', { namespace: ns });
    await eventually(async () => {
      const released = await env.client.pods.get('orphan', { namespace: ns });
      expect(released.metadata?.ownerReferences ?? []).toEqual([]);
      const found = await podsOf(rs);
      expect(found).toHaveLength(2);
      expect(found.map((p) => p.metadata?.name)).not.toContain('orphan');
    });

    // An orphan created later that matches is adopted too, and the extra pod is deleted.
    await env.client.pods.create({ metadata: { name: 'late', namespace: ns, labels: { app: 'adopt' } }, spec: podSpec });
    await eventually(async () => expect(await podsOf(rs)).toHaveLength(2));
    expect((await env.client.pods.get('foreign', { namespace: ns })).metadata?.resourceVersion).toBe(foreign.metadata?.resourceVersion);
  });

  it('never creates more pods than asked, however often its reconcile is woken meanwhile', async () => {
    const ns = await newNamespace();
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'burst', 30));
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, (await env.client.pods.listAll({ namespace: ns })).items.length);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      for (let i = 0; i < 8; i++) {
        const poke = { metadata: { labels: { poke: String(i) }, annotations: { poke: String(i) } } };
        await env.client.replicaSets.patch('burst', poke, 'merge', { namespace: ns });
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      await eventually(async () => expect(await podsOf(rs)).toHaveLength(30), 15_000);
      await eventually(async () => expect((await getRs(ns, 'burst')).status?.replicas).toBe(30));
      // Woken more once settled: still nothing more.
      for (let i = 0; i < 3; i++) {
        await env.client.replicaSets.patch('burst', { metadata: { annotations: { poke: `after-${i}` } } }, 'merge', { namespace: ns });
      }
      await eventually(async () => {
        const current = await getRs(ns, 'burst');
        expect(current.status?.observedGeneration).toBe(current.metadata?.generation);
      });
    } finally {
      sampling = false;
      await sampler;
    }
    expect(most).toBeLessThanOrEqual(30);
    expect((await env.client.pods.listAll({ namespace: ns })).items).toHaveLength(30);
  });

  it('keeps expectations of its creates and deletes: while some are unobserved it writes only its status', async () => {
    const ns = await newNamespace();
    const controller = running.manager.getControllers().find((c) => c.name === 'replicaset')!;
    const key = `${ns}/held`;
    // Creations awaited from an earlier sync (a term of leadership that ended, say): the cache
    // may not show them yet, so this ReplicaSet makes no pods until they are seen.
    controller.expectations.expectCreations(key, 2);
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'held', 3));
    await eventually(async () => expect((await getRs(ns, 'held')).status?.observedGeneration).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await podsOf(rs)).toHaveLength(0);

    controller.expectations.creationObserved(key);
    controller.expectations.creationObserved(key);
    await env.client.replicaSets.patch('held', { metadata: { annotations: { poke: '1' } } }, 'merge', { namespace: ns });
    await eventually(async () => expect(await podsOf(rs)).toHaveLength(3));
    // Its own creates were awaited and then seen by the pod informer.
    await eventually(() => expect(controller.expectations.satisfied(key)).toBe(true));

    await env.client.replicaSets.patch('held', { spec: { replicas: 1 } }, 'merge', { namespace: ns });
    await eventually(async () => expect((await podsOf(rs)).filter((p) => !p.metadata?.deletionTimestamp)).toHaveLength(1));
    await eventually(() => expect(controller.expectations.satisfied(key)).toBe(true));
  });

  it('reports ready and available replicas, waiting minReadySeconds before a ready pod counts as available', async () => {
    const ns = await newNamespace();
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'avail', 2, { minReadySeconds: 2 }));
    const pods = await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(2);
      return found;
    });
    await markReady(pods[0], new Date(Date.now() - 60_000));
    await markReady(pods[1]);
    await eventually(async () => expect((await getRs(ns, 'avail')).status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 1 }));
    // Nothing changes any more: the controller comes back by itself once minReadySeconds have passed.
    await eventually(async () => expect((await getRs(ns, 'avail')).status).toMatchObject({ readyReplicas: 2, availableReplicas: 2 }), 8_000);

    await env.client.replicaSets.patch('avail', { spec: { minReadySeconds: 3600 } }, 'merge', { namespace: ns });
    await eventually(async () => {
      const current = await getRs(ns, 'avail');
      expect(current.metadata?.generation).toBe(2);
      expect(current.status).toMatchObject({ readyReplicas: 2, availableReplicas: 0, observedGeneration: 2 });
    });
  });

  it('counts fully labelled replicas: pods carrying every template label', async () => {
    const ns = await newNamespace();
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'labels', 2));
    const pods = await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(2);
      return found;
    });
    // Still selected (app=labels), but no longer carrying tier=web.
    await env.client.pods.patch(pods[0].metadata!.name!, { metadata: { labels: { tier: null } } } as never, 'merge', { namespace: ns });
    await eventually(async () => expect((await getRs(ns, 'labels')).status).toMatchObject({ replicas: 2, fullyLabeledReplicas: 1 }));
  });

  it('creates nothing for a ReplicaSet being deleted', async () => {
    const ns = await newNamespace();
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'dying', 2, {}, { finalizers: ['example.com/hold'] }));
    const pods = await eventually(async () => {
      const found = await podsOf(rs);
      expect(found).toHaveLength(2);
      return found;
    });
    await eventually(async () => expect((await getRs(ns, 'dying')).status?.replicas).toBe(2));
    await env.client.replicaSets.delete('dying', { namespace: ns });
    expect((await getRs(ns, 'dying')).metadata?.deletionTimestamp).toBeDefined();

    await env.client.pods.delete(pods[0].metadata!.name!, { namespace: ns });
    // The status shows a sync that saw the pod gone; that sync created nothing.
    await eventually(async () => expect((await getRs(ns, 'dying')).status?.replicas).toBe(1));
    expect((await podsOf(rs)).map((p) => p.metadata?.name)).toEqual([pods[1].metadata?.name]);

    await env.client.replicaSets.patch('dying', { metadata: { finalizers: null } } as never, 'merge', { namespace: ns });
  });

  it('sets ReplicaFailure while pods cannot be created, and removes it once they can', async () => {
    const ns = await newNamespace();
    const rs = await env.client.replicaSets.create(replicaSet(ns, 'fail', 0));
    // The namespace goes away (finalized by hand) while the ReplicaSet is still stored: creates get 404.
    await env.client.namespaces.delete(ns);
    const terminating = await env.client.namespaces.get(ns);
    await env.client.rest.request({ method: 'PUT', path: `/api/v1/namespaces/${ns}/finalize`, body: { ...terminating, spec: { finalizers: [] } } });
    await eventually(async () => expect(await env.client.namespaces.get(ns).catch((e: unknown) => (isNotFound(e) ? 'gone' : e))).toBe('gone'));

    await env.client.replicaSets.patch('fail', { spec: { replicas: 2 } }, 'merge', { namespace: ns });
    await eventually(async () => {
      const condition = (await getRs(ns, 'fail')).status?.conditions?.find((c) => c.type === 'ReplicaFailure');
      expect(condition).toMatchObject({ status: 'True', reason: 'FailedCreate' });
      expect(condition?.message).toMatch(/not found/);
    });
    expect(await podsOf(rs)).toHaveLength(0);

    await env.client.namespaces.create({ metadata: { name: ns } });
    await eventually(async () => {
      expect(await podsOf(rs)).toHaveLength(2);
      expect((await getRs(ns, 'fail')).status?.conditions ?? []).toEqual([]);
    }, 20_000);
  });
});

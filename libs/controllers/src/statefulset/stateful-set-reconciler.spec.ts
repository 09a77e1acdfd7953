import 'reflect-metadata';
import type { ControllerRevision, Event, Pod, StatefulSet } from '@svc/api';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { statefulSetController } from './index';

let env: TestEnvironment;
let running: RunningControllers;
let nsCount = 0;

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [statefulSetController], ['--concurrent-statefulset-syncs=3']);
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

async function newNamespace(): Promise<string> {
  const name = `sts-test-${++nsCount}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

function statefulSet(namespace: string, replicas: number, spec: Partial<StatefulSet['spec']> = {}): StatefulSet {
  return {
    metadata: { name: 'web', namespace },
    spec: {
      replicas,
      serviceName: 'nginx',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } },
      ...spec,
    },
  };
}

async function pods(namespace: string): Promise<Pod[]> {
  const list = await env.client.pods.listAll({ namespace });
  return list.items.sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
}

const names = (list: Pod[]) => list.map((p) => p.metadata?.name);

/** A node agent's report that the pod runs and is ready since `since`. */
async function markReady(pod: Pod, since = new Date()): Promise<void> {
  await env.client.pods.patchStatus(
    pod.metadata!.name!,
    { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since.toISOString().replace(/\.\d{3}Z$/, 'Z') }] } },
    'merge',
    { namespace: pod.metadata!.namespace },
  );
}

/** Marks every pod of the namespace not yet ready, and waits until `count` pods exist and are ready. */
async function readyAll(namespace: string, count: number): Promise<Pod[]> {
  return eventually(async () => {
    const list = (await pods(namespace)).filter((p) => !p.metadata?.deletionTimestamp);
    for (const pod of list) if (pod.status?.phase !== 'Running') await markReady(pod);
    expect(list).toHaveLength(count);
    return pods(namespace);
  }, 20_000);
}

async function getSet(namespace: string): Promise<StatefulSet> {
  return env.client.statefulSets.get('web', { namespace });
}

async function revisions(namespace: string): Promise<ControllerRevision[]> {
  return (await env.client.controllerRevisions.listAll({ namespace })).items.sort((a, b) => a.revision - b.revision);
}

async function events(namespace: string): Promise<Event[]> {
  return (await env.client.events.listAll({ namespace })).items;
}

describe('the StatefulSet controller', () => {
  it('creates the pods one at a time in order, each ready before the next, with their identity', async () => {
    const ns = await newNamespace();
    const set = await env.client.statefulSets.create(statefulSet(ns, 3));
    const first = await eventually(async () => {
      const list = await pods(ns);
      expect(names(list)).toEqual(['web-0']);
      return list[0];
    });
    // Not ready: no second pod.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(names(await pods(ns))).toEqual(['web-0']);

    const revision = (await revisions(ns))[0];
    expect(revision.metadata?.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(revision.metadata?.labels).toMatchObject({ app: 'web', 'controller.kubernetes.io/hash': revision.metadata!.name!.slice(4) });
    expect(revision.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'StatefulSet', name: 'web', uid: set.metadata?.uid, controller: true }),
    ]);
    expect(revision.data).toMatchObject({ spec: { template: { $patch: 'replace', metadata: { labels: { app: 'web' } } } } });
    expect(revision.revision).toBe(1);

    expect(first.metadata?.labels).toEqual({
      app: 'web',
      'statefulset.kubernetes.io/pod-name': 'web-0',
      'apps.kubernetes.io/pod-index': '0',
      'controller-revision-hash': revision.metadata?.name,
    });
    expect(first.spec).toMatchObject({ hostname: 'web-0', subdomain: 'nginx' });
    expect(first.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'StatefulSet', name: 'web', controller: true, blockOwnerDeletion: true }),
    ]);

    await markReady(first);
    await eventually(async () => expect(names(await pods(ns))).toEqual(['web-0', 'web-1']));
    await markReady((await pods(ns))[1]);
    await eventually(async () => expect(names(await pods(ns))).toEqual(['web-0', 'web-1', 'web-2']));
    await markReady((await pods(ns))[2]);
    await eventually(async () =>
      expect((await getSet(ns)).status).toMatchObject({
        observedGeneration: 1,
        replicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        currentReplicas: 3,
        updatedReplicas: 3,
        currentRevision: revision.metadata?.name,
        updateRevision: revision.metadata?.name,
        collisionCount: 0,
      }),
    );
    await eventually(async () => {
      const created = (await events(ns)).filter((e) => e.reason === 'SuccessfulCreate').map((e) => e.message);
      expect(created.sort()).toEqual([
        'create Pod web-0 in StatefulSet web successful',
        'create Pod web-1 in StatefulSet web successful',
        'create Pod web-2 in StatefulSet web successful',
      ]);
    });

    // Scaled down: from the highest ordinal, one at a time.
    await env.client.statefulSets.patch('web', { spec: { replicas: 1 } }, 'merge', { namespace: ns });
    await eventually(async () => expect(names(await pods(ns))).toEqual(['web-0']));
    const deleted = (await events(ns)).filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.message);
    expect(deleted).toEqual(expect.arrayContaining(['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful']));
    await eventually(async () => expect((await getSet(ns)).status).toMatchObject({ replicas: 1, readyReplicas: 1, observedGeneration: 2 }));
  });

  it('in Parallel creates every pod at once, numbered from spec.ordinals.start, with volumes for its claims', async () => {
    const ns = await newNamespace();
    await env.client.statefulSets.create(
      statefulSet(ns, 3, {
        podManagementPolicy: 'Parallel',
        ordinals: { start: 5 },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'busybox:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] },
        },
      }),
    );
    const list = await eventually(async () => {
      const found = await pods(ns);
      expect(names(found)).toEqual(['web-5', 'web-6', 'web-7']);
      return found;
    });
    expect(list[1].metadata?.labels?.['apps.kubernetes.io/pod-index']).toBe('6');
    expect(list[1].spec?.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: 'data-web-6' } });
  });

  it('rolls a new template from the highest ordinal down to the partition, each ready before the next, and keeps the history', async () => {
    const ns = await newNamespace();
    await env.client.statefulSets.create(statefulSet(ns, 3, { podManagementPolicy: 'Parallel', revisionHistoryLimit: 1 }));
    await readyAll(ns, 3);
    const [first] = await revisions(ns);
    await env.client.statefulSets.patch(
      'web',
      {
        spec: {
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox:2' }] } },
        },
      },
      'merge',
      { namespace: ns },
    );
    const second = await eventually(async () => {
      const all = await revisions(ns);
      expect(all).toHaveLength(2);
      return all[1];
    });
    expect(second.revision).toBe(2);
    // web-2 is replaced first; web-1 waits until it is ready.
    const web2 = await eventually(async () => {
      const pod = (await pods(ns)).find((p) => p.metadata?.name === 'web-2');
      expect(pod?.metadata?.labels?.['controller-revision-hash']).toBe(second.metadata?.name);
      return pod!;
    });
    expect((await pods(ns)).find((p) => p.metadata?.name === 'web-1')?.metadata?.labels?.['controller-revision-hash']).toBe(first.metadata?.name);
    await markReady(web2);
    const web1 = await eventually(async () => {
      const pod = (await pods(ns)).find((p) => p.metadata?.name === 'web-1');
      expect(pod?.metadata?.labels?.['controller-revision-hash']).toBe(second.metadata?.name);
      return pod!;
    });
    await markReady(web1);
    await eventually(async () =>
      expect((await getSet(ns)).status).toMatchObject({
        replicas: 3,
        readyReplicas: 3,
        currentReplicas: 1,
        updatedReplicas: 2,
        currentRevision: first.metadata?.name,
        updateRevision: second.metadata?.name,
      }),
    );
    const web0 = (await pods(ns)).find((p) => p.metadata?.name === 'web-0');
    expect(web0?.metadata?.labels?.['controller-revision-hash']).toBe(first.metadata?.name);
    expect(web0?.spec?.containers[0].image).toBe('busybox:1');

    // The partition lifted: web-0 too, and the update revision becomes current.
    await env.client.statefulSets.patch('web', { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } } }, 'merge', {
      namespace: ns,
    });
    await eventually(async () => {
      const pod = (await pods(ns)).find((p) => p.metadata?.name === 'web-0');
      expect(pod?.metadata?.labels?.['controller-revision-hash']).toBe(second.metadata?.name);
    });
    await readyAll(ns, 3);
    await eventually(async () =>
      expect((await getSet(ns)).status).toMatchObject({ currentReplicas: 3, updatedReplicas: 3, currentRevision: second.metadata?.name }),
    );

    // Back to the first template: its revision is renumbered to be the newest, none is made.
    await env.client.statefulSets.patch('web', { spec: { template: (first.data as { spec: { template: unknown } }).spec.template } } as never, 'strategic', {
      namespace: ns,
    });
    await eventually(async () => {
      const all = await revisions(ns);
      expect(all.map((r) => [r.metadata?.name, r.revision])).toEqual([
        [second.metadata?.name, 2],
        [first.metadata?.name, 3],
      ]);
    });
    await readyAll(ns, 3);
    // A third template: with revisionHistoryLimit 1, once no pod runs the oldest it goes.
    await env.client.statefulSets.patch(
      'web',
      { spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox:3' }] } } } },
      'merge',
      { namespace: ns },
    );
    await eventually(async () => {
      const list = await pods(ns);
      for (const pod of list) if (pod.status?.phase !== 'Running') await markReady(pod);
      const set = await getSet(ns);
      expect(set.status).toMatchObject({ updatedReplicas: 3, readyReplicas: 3, currentRevision: set.status?.updateRevision });
      const all = await revisions(ns);
      expect(all.map((r) => r.metadata?.name)).toEqual([first.metadata?.name, set.status?.updateRevision]);
    }, 20_000);
  });

  it('with OnDelete replaces a pod only once it is deleted', async () => {
    const ns = await newNamespace();
    await env.client.statefulSets.create(statefulSet(ns, 2, { podManagementPolicy: 'Parallel', updateStrategy: { type: 'OnDelete' } }));
    await readyAll(ns, 2);
    const [first] = await revisions(ns);
    await env.client.statefulSets.patch(
      'web',
      { spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } },
      'merge',
      { namespace: ns },
    );
    const status = await eventually(async () => {
      const s = (await getSet(ns)).status;
      expect(s?.updateRevision).not.toBe(first.metadata?.name);
      expect(s).toMatchObject({ currentRevision: first.metadata?.name, currentReplicas: 2, updatedReplicas: 0, observedGeneration: 2 });
      return s!;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await pods(ns)).map((p) => p.metadata?.labels?.['controller-revision-hash'])).toEqual([first.metadata?.name, first.metadata?.name]);
    await env.client.pods.delete('web-1', { namespace: ns, gracePeriodSeconds: 0 });
    await eventually(async () => {
      const pod = (await pods(ns)).find((p) => p.metadata?.name === 'web-1');
      expect(pod?.metadata?.labels?.['controller-revision-hash']).toBe(status.updateRevision);
      expect(pod?.spec?.containers[0].image).toBe('busybox:2');
    });
  });

  it('counts a pod available once ready for minReadySeconds', async () => {
    const ns = await newNamespace();
    await env.client.statefulSets.create(statefulSet(ns, 1, { minReadySeconds: 2 }));
    const [pod] = await eventually(async () => {
      const list = await pods(ns);
      expect(list).toHaveLength(1);
      return list;
    });
    await markReady(pod);
    await eventually(async () => expect((await getSet(ns)).status).toMatchObject({ readyReplicas: 1, availableReplicas: 0 }));
    await eventually(async () => expect((await getSet(ns)).status).toMatchObject({ readyReplicas: 1, availableReplicas: 1 }), 5_000);
  });

  it('in Parallel removes the pods beyond the range at once, ready or not, and remakes a failed pod', async () => {
    const ns = await newNamespace();
    await env.client.statefulSets.create(statefulSet(ns, 4, { podManagementPolicy: 'Parallel' }));
    const list = await eventually(async () => {
      const found = await pods(ns);
      expect(found).toHaveLength(4);
      return found;
    });
    await markReady(list[3]);
    await env.client.statefulSets.patch('web', { spec: { replicas: 2 } }, 'merge', { namespace: ns });
    await eventually(async () => expect(names(await pods(ns))).toEqual(['web-0', 'web-1']));

    const failed = (await pods(ns))[1];
    await env.client.pods.patchStatus('web-1', { status: { phase: 'Failed' } }, 'merge', { namespace: ns });
    await eventually(async () => {
      const again = (await pods(ns)).find((p) => p.metadata?.name === 'web-1');
      expect(again?.metadata?.uid).toBeDefined();
      expect(again?.metadata?.uid).not.toBe(failed.metadata?.uid);
    });
  });

  it('counts a collision when the hash of its template names a revision of other data', async () => {
    // The first namespace tells which name the template's revision takes.
    const probe = await newNamespace();
    await env.client.statefulSets.create(statefulSet(probe, 0));
    const taken = await eventually(async () => {
      const [revision] = await revisions(probe);
      expect(revision).toBeDefined();
      return revision.metadata!.name!;
    });
    const ns = await newNamespace();
    await env.client.controllerRevisions.create({ metadata: { name: taken, namespace: ns }, data: { other: true }, revision: 1 });
    await env.client.statefulSets.create(statefulSet(ns, 0));
    const status = await eventually(async () => {
      const s = (await getSet(ns)).status;
      expect(s?.collisionCount).toBe(1);
      return s!;
    });
    expect(status.updateRevision).not.toBe(taken);
    expect((await revisions(ns)).map((r) => r.metadata?.name).sort()).toEqual([taken, status.updateRevision].sort());
  });

  it('adopts an orphan pod named as its member and leaves others alone', async () => {
    const ns = await newNamespace();
    const orphan = (name: string): Pod => ({
      metadata: { name, namespace: ns, labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
    });
    await env.client.pods.create(orphan('web-0'));
    await env.client.pods.create(orphan('other-0'));
    const set = await env.client.statefulSets.create(statefulSet(ns, 1));
    await eventually(async () => {
      const list = await pods(ns);
      expect(list.find((p) => p.metadata?.name === 'web-0')?.metadata?.ownerReferences).toEqual([expect.objectContaining({ uid: set.metadata?.uid })]);
      expect(list.find((p) => p.metadata?.name === 'other-0')?.metadata?.ownerReferences ?? []).toEqual([]);
    });
  });
});

import 'reflect-metadata';
import type { ControllerRevision, DaemonSet, Node, Pod } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { eventually } from '@svc/runtime/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { targetNodeName } from './daemon-pod-placement';
import { podGcController, PodGcOptions } from '../podgc';
import { daemonSetController } from './index';

let env: TestEnvironment;
let running: RunningControllers;
let count = 0;

beforeAll(async () => {
  env = await startTestEnvironment();
  // The pod garbage collector removes the pods of nodes that are gone; here with periods of a test's length.
  const podGc = { ...podGcController, options: () => [new PodGcOptions(12_500, 200, 500)] };
  running = await startControllers(env, [daemonSetController, podGc], [], { logger: { info: () => undefined, error: (m, e) => console.error(m, e) } });
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

/** A namespace and a node label of the test's own: its DaemonSets select only its nodes (nodes are shared by the whole environment). */
async function scope(): Promise<{ ns: string; group: string }> {
  const ns = `ds-test-${++count}`;
  await env.client.namespaces.create({ metadata: { name: ns } });
  return { ns, group: ns };
}

/**
 * A ready node: admission gives a new node the not-ready NoSchedule taint, which daemon pods do not
 * tolerate, and the node lifecycle controller (not running here) lifts it once the node is Ready.
 */
async function node(name: string, group: string, spec: Partial<Node['spec']> = {}): Promise<Node> {
  const created = await env.client.nodes.create({ metadata: { name, labels: { group } }, spec: {} });
  return env.client.nodes.update({ ...created, spec: { ...created.spec, taints: [], ...spec } });
}

function daemonSet(ns: string, group: string, extra: Partial<DaemonSet['spec']> = {}): DaemonSet {
  return {
    metadata: { name: 'agent', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { nodeSelector: { group }, containers: [{ name: 'c', image: 'busybox:1.36' }] },
      },
      ...extra,
    },
  };
}

async function podsOf(ns: string, includeTerminating = false): Promise<Pod[]> {
  const list = await env.client.pods.listAll({ namespace: ns });
  return list.items.filter((p) => includeTerminating || !p.metadata?.deletionTimestamp);
}

/** What the scheduler and a node agent would do: bind the pod to the node its affinity names, and report it running and ready. */
async function bindAndReady(pod: Pod): Promise<void> {
  const name = pod.metadata!.name!;
  const namespace = pod.metadata!.namespace!;
  if (!pod.spec.nodeName) {
    await env.client.pods.createSubresource(
      name,
      'binding',
      { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { name: targetNodeName(pod)! } },
      { namespace },
    );
  }
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await env.client.pods.patchStatus(name, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }, 'merge', {
    namespace,
  });
}

/** Finishes the deletion of pods marked for it, as a node agent does. */
async function finishDeletions(ns: string): Promise<void> {
  for (const pod of await podsOf(ns, true)) {
    if (pod.metadata?.deletionTimestamp) await env.client.pods.delete(pod.metadata.name!, { namespace: ns, gracePeriodSeconds: 0 }).catch(() => undefined);
  }
}

/** A change of the template, as `kubectl set image` makes it (a patch: the controller writes the status meanwhile). */
async function newImage(ns: string, image: string): Promise<void> {
  await env.client.daemonSets.patch('agent', { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } } as never, 'strategic', { namespace: ns });
}

const nodesOf = (pods: Pod[]) => pods.map((p) => targetNodeName(p)).sort();

describe('the DaemonSet controller', () => {
  it('makes one pod per eligible node, pinned through a matchFields node affinity with the daemon tolerations, and reports it', async () => {
    const { ns, group } = await scope();
    await node(`${group}-a`, group);
    await node(`${group}-b`, group);
    await node(`${group}-other`, 'elsewhere');
    const ds = await env.client.daemonSets.create(daemonSet(ns, group));

    const pods = await eventually(async () => {
      const found = await podsOf(ns);
      expect(nodesOf(found)).toEqual([`${group}-a`, `${group}-b`]);
      return found;
    });
    const revisions = (await env.client.controllerRevisions.listAll({ namespace: ns })).items;
    expect(revisions).toHaveLength(1);
    const hash = revisions[0].metadata!.labels!['controller-revision-hash'];
    expect(revisions[0]).toMatchObject({ revision: 1, metadata: { name: `agent-${hash}` } });
    expect((revisions[0].data as { spec: { template: Record<string, unknown> } }).spec.template.$patch).toBe('replace');
    for (const pod of pods) {
      expect(pod.spec.nodeName).toBeUndefined();
      expect(pod.metadata?.name).toMatch(/^agent-[a-z0-9]{5}$/);
      expect(pod.metadata?.labels).toEqual({ app: 'agent', 'controller-revision-hash': hash, 'pod-template-generation': '1' });
      expect(pod.metadata?.ownerReferences).toEqual([
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata!.uid, controller: true, blockOwnerDeletion: true },
      ]);
      expect(pod.spec.affinity).toEqual({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [targetNodeName(pod)] }] }],
          },
        },
      });
      expect(pod.spec.tolerations).toEqual(
        expect.arrayContaining([
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
          { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
        ]),
      );
    }
    await eventually(async () =>
      expect((await env.client.daemonSets.get('agent', { namespace: ns })).status).toMatchObject({
        desiredNumberScheduled: 2,
        currentNumberScheduled: 2,
        numberMisscheduled: 0,
        numberReady: 0,
        updatedNumberScheduled: 2,
        numberAvailable: 0,
        numberUnavailable: 2,
        observedGeneration: 1,
      }),
    );
    for (const pod of pods) await bindAndReady(pod);
    await eventually(async () =>
      expect((await env.client.daemonSets.get('agent', { namespace: ns })).status).toMatchObject({ numberReady: 2, numberAvailable: 2, numberUnavailable: 0 }),
    );
    const events = (await env.client.events.listAll({ namespace: ns })).items;
    expect(events.filter((e) => e.reason === 'SuccessfulCreate' && e.involvedObject?.kind === 'DaemonSet')).toHaveLength(2);
  });

  it('follows the nodes: a cordoned node gets its pod, an untolerated NoSchedule taint keeps one off, a new node gets one, a node that stops matching loses it', async () => {
    const { ns, group } = await scope();
    await node(`${group}-cordoned`, group, { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] });
    await node(`${group}-tainted`, group, { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] });
    await env.client.daemonSets.create(daemonSet(ns, group));
    await eventually(async () => expect(nodesOf(await podsOf(ns))).toEqual([`${group}-cordoned`]));

    await node(`${group}-new`, group);
    await eventually(async () => expect(nodesOf(await podsOf(ns))).toEqual([`${group}-cordoned`, `${group}-new`]));

    await env.client.nodes.patch(`${group}-new`, { metadata: { labels: { group: 'moved' } } });
    await eventually(async () => expect(nodesOf(await podsOf(ns))).toEqual([`${group}-cordoned`]));
    const events = (await env.client.events.listAll({ namespace: ns })).items;
    expect(events.some((e) => e.reason === 'SuccessfulDelete')).toBe(true);
  });

  it('deletes a failed daemon pod and makes another, with a FailedDaemonPod event', async () => {
    const { ns, group } = await scope();
    await node(`${group}-a`, group);
    await env.client.daemonSets.create(daemonSet(ns, group));
    const [first] = await eventually(async () => {
      const found = await podsOf(ns);
      expect(found).toHaveLength(1);
      return found;
    });
    await bindAndReady(first);
    await env.client.pods.patchStatus(first.metadata!.name!, { status: { phase: 'Failed', conditions: [] } }, 'merge', { namespace: ns });
    await finishDeletions(ns);
    await eventually(async () => {
      await finishDeletions(ns);
      const found = await podsOf(ns);
      expect(found).toHaveLength(1);
      expect(found[0].metadata?.uid).not.toBe(first.metadata?.uid);
    });
    const events = (await env.client.events.listAll({ namespace: ns })).items;
    expect(events.find((e) => e.reason === 'FailedDaemonPod')?.message).toBe(
      `Found failed daemon pod ${ns}/${first.metadata!.name} on node ${group}-a, will try to kill it`,
    );
  });

  it('rolls a template change out one node at a time (maxUnavailable 1), keeping each template as a ControllerRevision', async () => {
    const { ns, group } = await scope();
    for (const n of ['a', 'b', 'c']) await node(`${group}-${n}`, group);
    await env.client.daemonSets.create(daemonSet(ns, group));
    await eventually(async () => expect(await podsOf(ns)).toHaveLength(3));
    for (const pod of await podsOf(ns)) await bindAndReady(pod);
    await eventually(async () => expect((await env.client.daemonSets.get('agent', { namespace: ns })).status?.numberAvailable).toBe(3));

    await newImage(ns, 'busybox:1.37');

    let maxDown = 0;
    await eventually(
      async () => {
        const pods = await podsOf(ns, true);
        const down =
          3 - pods.filter((p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
        maxDown = Math.max(maxDown, down);
        await finishDeletions(ns);
        for (const pod of await podsOf(ns)) if (pod.status?.phase !== 'Running') await bindAndReady(pod);
        const live = await podsOf(ns);
        expect(live).toHaveLength(3);
        expect(live.every((p) => p.spec.containers[0].image === 'busybox:1.37' && p.metadata?.labels?.['pod-template-generation'] === '2')).toBe(true);
        expect((await env.client.daemonSets.get('agent', { namespace: ns })).status).toMatchObject({
          updatedNumberScheduled: 3,
          numberAvailable: 3,
          observedGeneration: 2,
        });
      },
      20_000,
      100,
    );
    expect(maxDown).toBeLessThanOrEqual(1);
    const revisions: ControllerRevision[] = (await env.client.controllerRevisions.listAll({ namespace: ns })).items;
    expect(revisions.map((r) => r.revision).sort()).toEqual([1, 2]);
  });

  it('with OnDelete leaves old pods alone until they are deleted, and makes their replacements from the new template', async () => {
    const { ns, group } = await scope();
    for (const n of ['a', 'b']) await node(`${group}-${n}`, group);
    await env.client.daemonSets.create(daemonSet(ns, group, { updateStrategy: { type: 'OnDelete' } }));
    await eventually(async () => expect(await podsOf(ns)).toHaveLength(2));
    for (const pod of await podsOf(ns)) await bindAndReady(pod);

    await newImage(ns, 'busybox:1.37');
    await eventually(async () =>
      expect((await env.client.daemonSets.get('agent', { namespace: ns })).status).toMatchObject({ observedGeneration: 2, updatedNumberScheduled: 0 }),
    );
    expect((await podsOf(ns)).map((p) => p.spec.containers[0].image)).toEqual(['busybox:1.36', 'busybox:1.36']);

    const [victim] = await podsOf(ns);
    await env.client.pods.delete(victim.metadata!.name!, { namespace: ns, gracePeriodSeconds: 0 });
    await eventually(async () => {
      const images = (await podsOf(ns)).map((p) => p.spec.containers[0].image).sort();
      expect(images).toEqual(['busybox:1.36', 'busybox:1.37']);
    });
  });

  it('a node removed loses its pod: the pod garbage collector deletes it and the DaemonSet makes no other', async () => {
    const { ns, group } = await scope();
    for (const n of ['a', 'b']) await node(`${group}-${n}`, group);
    await env.client.daemonSets.create(daemonSet(ns, group));
    await eventually(async () => expect(await podsOf(ns)).toHaveLength(2));
    for (const pod of await podsOf(ns)) await bindAndReady(pod);
    await eventually(async () => expect((await env.client.daemonSets.get('agent', { namespace: ns })).status?.numberAvailable).toBe(2));

    await env.client.nodes.delete(`${group}-b`);
    await eventually(async () => {
      expect(nodesOf(await podsOf(ns, true))).toEqual([`${group}-a`]);
      expect((await env.client.daemonSets.get('agent', { namespace: ns })).status).toMatchObject({
        desiredNumberScheduled: 1,
        currentNumberScheduled: 1,
        numberAvailable: 1,
      });
    }, 10_000);
  });

  it('with maxSurge starts the new pod beside the old one, which goes once the new one is available', async () => {
    const { ns, group } = await scope();
    await node(`${group}-a`, group);
    await env.client.daemonSets.create(daemonSet(ns, group, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }));
    const [old] = await eventually(async () => {
      const found = await podsOf(ns);
      expect(found).toHaveLength(1);
      return found;
    });
    await bindAndReady(old);
    await eventually(async () => expect((await env.client.daemonSets.get('agent', { namespace: ns })).status?.numberAvailable).toBe(1));

    await newImage(ns, 'busybox:1.37');
    const surged = await eventually(async () => {
      const found = await podsOf(ns);
      expect(found.map((p) => p.spec.containers[0].image).sort()).toEqual(['busybox:1.36', 'busybox:1.37']);
      return found.find((p) => p.spec.containers[0].image === 'busybox:1.37')!;
    });
    // Not yet available: the old pod stays.
    expect((await podsOf(ns)).some((p) => p.metadata?.uid === old.metadata?.uid)).toBe(true);
    await bindAndReady(surged);
    await eventually(async () => {
      await finishDeletions(ns);
      expect((await podsOf(ns, true)).map((p) => p.metadata?.uid)).toEqual([surged.metadata?.uid]);
    });
  });
});

// Claims, volumes and the scheduler on the real processes: the API server, the controller manager (the
// persistent volume, protection, ephemeral volume, StatefulSet and garbage collector controllers), the
// scheduler, and two simulated nodes. No node agent runs here, so the test plays the provisioner's part
// of the protocol: for a claim handed to `test.svc.io/sim` on a selected node it makes a `local` volume
// on that node, pre-bound to the claim, and deletes the Released volumes it made.
import type { Event, PersistentVolumeClaim, Pod, StatefulSet } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { startNodeSimulatorProcess, type NodeSimulatorProcess } from './support/node-simulator-process';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

jest.setTimeout(120_000);

const PROVISIONER = 'test.svc.io/sim';
const NS = 'volumes';
const WAIT = 30_000;

let apiserver: ApiServerProcess;
let cm: ControllerManagerProcess;
let scheduler: SchedulerProcess;
let nodes: NodeSimulatorProcess;
let client: Client;
let provisioning: NodeJS.Timeout | undefined;
/** Volumes the simulated provisioner made, and deleted once Released. */
const made = new Set<string>();
const deleted = new Set<string>();

/** One pass of the simulated provisioner (what the node agent's provisioner does, in the API alone). */
async function provisionOnce(): Promise<void> {
  const claims = await client.persistentVolumeClaims.list();
  for (const claim of claims.items) {
    const annotations = claim.metadata?.annotations ?? {};
    const node = annotations['volume.kubernetes.io/selected-node'];
    if (annotations['volume.kubernetes.io/storage-provisioner'] !== PROVISIONER || !node || claim.spec?.volumeName) continue;
    const name = `pvc-${claim.metadata?.uid}`;
    if (made.has(name)) continue;
    made.add(name);
    await client.persistentVolumes.create({
      metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER } },
      spec: {
        capacity: { storage: String(claim.spec?.resources?.requests?.storage ?? '1Gi') },
        accessModes: claim.spec?.accessModes,
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: claim.spec?.storageClassName,
        local: { path: `/var/lib/sim/${name}` },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
        claimRef: {
          kind: 'PersistentVolumeClaim',
          apiVersion: 'v1',
          namespace: claim.metadata?.namespace,
          name: claim.metadata?.name,
          uid: claim.metadata?.uid,
        },
      },
    });
  }
  const volumes = await client.persistentVolumes.list();
  for (const volume of volumes.items) {
    const name = volume.metadata?.name ?? '';
    if (!made.has(name) || volume.status?.phase !== 'Released' || deleted.has(name)) continue;
    deleted.add(name);
    await client.persistentVolumes.delete(name);
  }
}

function startProvisioner(): void {
  let busy = false;
  provisioning = setInterval(() => {
    if (busy) return;
    busy = true;
    provisionOnce()
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, 200);
}

const getClaim = (name: string) => client.persistentVolumeClaims.get(name, { namespace: NS });
const getPod = (name: string) => client.pods.get(name, { namespace: NS });

async function gone(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

async function events(name: string): Promise<Event[]> {
  return (await client.events.list({ namespace: NS, fieldSelector: `involvedObject.name=${name}` })).items;
}

function claim(name: string, className: string, size = '1Gi'): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: NS },
    spec: { storageClassName: className, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } },
  };
}

function pod(name: string, volumes: Pod['spec']['volumes'], extra: Partial<Pod['spec']> = {}): Pod {
  return { metadata: { name, namespace: NS }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'busybox' }], volumes, ...extra } };
}

async function scheduledOn(name: string): Promise<string> {
  return eventually(async () => {
    const current = await getPod(name);
    expect(current.spec.nodeName).toBeTruthy();
    return current.spec.nodeName ?? '';
  }, WAIT);
}

beforeAll(async () => {
  apiserver = await startApiServerProcess();
  client = new Client({ ...(await loadClientConfig({ svcconfig: apiserver.kubeconfig })), qps: -1 });
  cm = await startControllerManagerProcess(apiserver, [
    '--controllers=persistentvolume-binder,pvc-protection,pv-protection,ephemeral-volume,statefulset,garbagecollector,nodelifecycle',
    '--pvclaimbinder-sync-period=2s',
  ]);
  scheduler = await startSchedulerProcess(apiserver);
  nodes = await startNodeSimulatorProcess(apiserver, ['--node-names=node-a,node-b']);
  await client.namespaces.create({ metadata: { name: NS } });
  await client.storageClasses.create({
    metadata: { name: 'sim-wait' },
    provisioner: PROVISIONER,
    volumeBindingMode: 'WaitForFirstConsumer',
    reclaimPolicy: 'Delete',
  });
  await client.storageClasses.create({ metadata: { name: 'nobody' }, provisioner: 'example.com/absent', volumeBindingMode: 'Immediate' });
  startProvisioner();
  // The node lifecycle controller lifts the not-ready taint each new node starts with.
  await eventually(async () => {
    const list = await client.nodes.list();
    expect(list.items.map((n) => [n.metadata?.name, (n.spec?.taints ?? []).length])).toEqual([
      ['node-a', 0],
      ['node-b', 0],
    ]);
  }, WAIT);
}, 120_000);

afterAll(async () => {
  if (provisioning) clearInterval(provisioning);
  client?.close();
  await nodes?.stop();
  await scheduler?.stop();
  await cm?.stop();
  await apiserver?.stop();
});

describe('volume binding across the controller manager and the scheduler', () => {
  it('binds a WaitForFirstConsumer claim only once its pod is scheduled, on that pod’s node, and keeps later pods there', async () => {
    await client.persistentVolumeClaims.create(claim('data', 'sim-wait'));
    await eventually(async () => expect((await events('data')).map((e) => e.reason)).toContain('WaitForFirstConsumer'), WAIT);
    expect((await getClaim('data')).metadata?.annotations?.['volume.kubernetes.io/storage-provisioner']).toBeUndefined();

    await client.pods.create(
      pod('writer', [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }], { nodeSelector: { 'kubernetes.io/hostname': 'node-b' } }),
    );
    expect(await scheduledOn('writer')).toBe('node-b');
    const bound = await getClaim('data');
    expect(bound.status?.phase).toBe('Bound');
    expect(bound.metadata?.annotations).toMatchObject({
      'volume.kubernetes.io/selected-node': 'node-b',
      'volume.kubernetes.io/storage-provisioner': PROVISIONER,
    });
    const volume = await client.persistentVolumes.get(bound.spec?.volumeName ?? '');
    expect(volume.status?.phase).toBe('Bound');

    // The volume lives on node-b: a second pod of the claim goes there too, whatever it would prefer.
    await client.pods.create(pod('reader', [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }]));
    expect(await scheduledOn('reader')).toBe('node-b');
  });

  it('keeps a pod of an unbound Immediate claim or of a missing claim Pending, saying why', async () => {
    await client.persistentVolumeClaims.create(claim('unprovisioned', 'nobody'));
    await client.pods.create(pod('stuck', [{ name: 'data', persistentVolumeClaim: { claimName: 'unprovisioned' } }]));
    await client.pods.create(pod('orphan', [{ name: 'data', persistentVolumeClaim: { claimName: 'nope' } }]));
    await eventually(async () => {
      const stuck = (await getPod('stuck')).status?.conditions?.find((c) => c.type === 'PodScheduled');
      expect(stuck?.message).toMatch(/^0\/2 nodes are available: pod has unbound immediate PersistentVolumeClaims\. preemption: /);
      const orphan = (await getPod('orphan')).status?.conditions?.find((c) => c.type === 'PodScheduled');
      expect(orphan?.message).toMatch(/^0\/2 nodes are available: persistentvolumeclaim "nope" not found\. preemption: /);
    }, WAIT);
    await eventually(async () => expect((await events('unprovisioned')).map((e) => e.reason)).toContain('ExternalProvisioning'), WAIT);

    // The claim appears: the pod is tried again and placed.
    await client.persistentVolumeClaims.create(claim('nope', 'sim-wait'));
    await scheduledOn('orphan');
  });

  it('keeps a claim in use until its pods go, then releases and deletes its volume', async () => {
    const volumeName = (await getClaim('data')).spec?.volumeName ?? '';
    await client.persistentVolumeClaims.delete('data', { namespace: NS });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await getClaim('data')).metadata?.deletionTimestamp).toBeDefined();
    await client.pods.delete('writer', { namespace: NS, gracePeriodSeconds: 0 });
    await client.pods.delete('reader', { namespace: NS, gracePeriodSeconds: 0 });
    await eventually(async () => expect(await gone(() => getClaim('data'))).toBe(true), WAIT);
    // Released, then deleted by the provisioner that made it; the pv-protection finalizer lets it go.
    await eventually(async () => expect(await gone(() => client.persistentVolumes.get(volumeName))).toBe(true), WAIT);
    expect(deleted.has(volumeName)).toBe(true);
  });

  it('makes an ephemeral volume’s claim for its pod, binds it, and removes it with the pod', async () => {
    const template = { spec: { storageClassName: 'sim-wait', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    await client.pods.create(pod('scratchy', [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }]));
    const node = await scheduledOn('scratchy');
    const scratch = await getClaim('scratchy-scratch');
    expect(scratch.status?.phase).toBe('Bound');
    expect(scratch.metadata?.annotations?.['volume.kubernetes.io/selected-node']).toBe(node);
    expect(scratch.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Pod', name: 'scratchy', controller: true });
    await client.pods.delete('scratchy', { namespace: NS, gracePeriodSeconds: 0 });
    await eventually(async () => expect(await gone(() => getClaim('scratchy-scratch'))).toBe(true), WAIT);
  });

  it('gives each StatefulSet ordinal its own claim, the same one to a replaced pod, and applies the retention policy', async () => {
    const set: StatefulSet = {
      metadata: { name: 'db', namespace: NS },
      spec: {
        replicas: 2,
        serviceName: 'db',
        podManagementPolicy: 'Parallel',
        selector: { matchLabels: { app: 'db' } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
        template: { metadata: { labels: { app: 'db' } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'busybox' }] } },
        volumeClaimTemplates: [
          { metadata: { name: 'data' }, spec: { storageClassName: 'sim-wait', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
        ],
      },
    };
    await client.statefulSets.create(set);
    await eventually(async () => {
      for (const ordinal of [0, 1]) {
        expect((await getClaim(`data-db-${ordinal}`)).status?.phase).toBe('Bound');
        expect((await getPod(`db-${ordinal}`)).spec.nodeName).toBeTruthy();
      }
    }, WAIT);
    const first = await getClaim('data-db-0');
    const firstPod = await getPod('db-0');

    await client.pods.delete('db-0', { namespace: NS, gracePeriodSeconds: 0 });
    const replaced = await eventually(async () => {
      const current = await getPod('db-0');
      expect(current.metadata?.uid).not.toBe(firstPod.metadata?.uid);
      expect(current.spec.nodeName).toBeTruthy();
      return current;
    }, WAIT);
    expect(replaced.spec.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } });
    // The same claim, on the node its volume lives on.
    expect((await getClaim('data-db-0')).metadata?.uid).toBe(first.metadata?.uid);
    expect(replaced.spec.nodeName).toBe(firstPod.spec.nodeName);

    // Scaled down: the claim of the pod scaled away goes with it (whenScaled: Delete).
    await client.statefulSets.patch('db', { spec: { replicas: 1 } }, 'merge', { namespace: NS });
    await eventually(async () => expect(await gone(() => getClaim('data-db-1'))).toBe(true), WAIT);
    // Deleted: the remaining claim stays (whenDeleted: Retain).
    await client.statefulSets.delete('db', { namespace: NS, propagationPolicy: 'Foreground' });
    await eventually(async () => expect(await gone(() => getPod('db-0'))).toBe(true), WAIT);
    expect((await getClaim('data-db-0')).status?.phase).toBe('Bound');
  });
});

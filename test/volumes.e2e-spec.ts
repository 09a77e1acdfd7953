// Volumes that keep data, the whole way as a user meets them: npm start's default class (local-path,
// WaitForFirstConsumer), the scheduler's volume binding choosing the node, the node agent's local path
// provisioner making the volume there, the persistent volume controller binding it, the protection
// controllers holding a claim in use, the ephemeral volume controller, StatefulSet claims, and pods in
// real containers reading back what an earlier pod wrote.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

// The launcher's own module (plain JavaScript, run by npm start).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureDefaultStorageClass } = require('../bin/default-storage-class') as { ensureDefaultStorageClass: (svcconfig: string) => Promise<void> };

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Volume tests on a node agent are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

describeWithRuntime('volumes that keep data, on a node agent, with the controllers and the scheduler', () => {
  let cluster: NodeCluster;
  let controllers: ControllerManagerProcess;
  let scheduler: SchedulerProcess;
  const env = () => cluster.env();
  const json = async (...args: string[]) => JSON.parse((await kubectl([...args, '-o', 'json'], env())).stdout);
  const exists = async (...args: string[]) => (await runKubectl(['get', ...args, '-o', 'name'], env())).code === 0;

  /** `kubectl create -f` of objects: pods are left to the scheduler (no nodeName). */
  async function create(...objects: unknown[]): Promise<void> {
    const file = join(cluster.apiserver.dir, `volumes-${Date.now()}-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, objects.map((o) => stringify(o)).join('---\n'));
    await kubectl(['create', '-f', file], env());
  }

  const claim = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '16Mi' } }, ...extra },
  });

  const pod = (name: string, script: string, volumes: unknown[], restartPolicy = 'Never') => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      restartPolicy,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', script], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes,
    },
  });
  const claimVolume = (claimName: string) => [{ name: 'data', persistentVolumeClaim: { claimName } }];

  async function finished(name: string): Promise<string> {
    await eventually(async () => expect((await cluster.getPod(name)).status?.phase).toBe('Succeeded'), 60_000, 250);
    return (await kubectl(['logs', name], env())).stdout;
  }

  async function deletePod(name: string): Promise<void> {
    await kubectl(['delete', 'pod', name, '--wait=true', '--timeout=60s'], env(), 65_000);
  }

  beforeAll(async () => {
    cluster = await startNodeCluster();
    [controllers, scheduler] = await Promise.all([startControllerManagerProcess(cluster.apiserver), startSchedulerProcess(cluster.apiserver)]);
    // No node lifecycle taint lingers: the node lifecycle controller runs in the controller manager.
    await ensureDefaultStorageClass(cluster.apiserver.kubeconfig);
  }, 120_000);

  afterAll(async () => {
    await scheduler?.stop();
    await controllers?.stop();
    await cluster?.stop();
  }, 60_000);

  it('a claim of the default class binds only once its pod is scheduled, on that node; a new pod on the claim reads back what the first wrote', async () => {
    await create(claim('notes'));
    const pending = await json('get', 'pvc', 'notes');
    // The default class, given by DefaultStorageClass admission; WaitForFirstConsumer keeps it Pending until a pod uses it.
    expect(pending.spec.storageClassName).toBe('local-path');
    expect(pending.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    await eventually(async () => {
      const events = await json('get', 'events', '--field-selector', 'involvedObject.name=notes');
      expect(events.items.map((e: { reason: string }) => e.reason)).toContain('WaitForFirstConsumer');
    }, 20_000);
    expect((await json('get', 'pvc', 'notes')).status.phase).toBe('Pending');

    await create(pod('writer', 'echo kept > /data/note && cat /data/note', claimVolume('notes')));
    expect(await finished('writer')).toBe('kept\n');
    const bound = await json('get', 'pvc', 'notes');
    expect(bound.status.phase).toBe('Bound');
    expect(bound.metadata.annotations['volume.kubernetes.io/selected-node']).toBe(cluster.agent.nodeName);
    const volume = await json('get', 'pv', bound.spec.volumeName);
    expect(volume.metadata.annotations['pv.kubernetes.io/provisioned-by']).toBe('svc.io/local-path');
    expect(volume.spec.claimRef).toMatchObject({ name: 'notes', namespace: 'default', uid: bound.metadata.uid });
    expect(JSON.stringify(volume.spec.nodeAffinity)).toContain(cluster.agent.nodeName);
    expect(volume.status.phase).toBe('Bound');

    await deletePod('writer');
    await create(pod('reader', 'cat /data/note', claimVolume('notes')));
    expect(await finished('reader')).toBe('kept\n');
  }, 150_000);

  it('a claim in use is not removed until its pod goes; then its Delete volume goes with its directory', async () => {
    await create(claim('busy'), pod('holder', 'trap "exit 0" TERM; sleep 3600 & wait', claimVolume('busy'), 'Always'));
    await kubectl(['wait', '--for=condition=Ready', 'pod/holder', '--timeout=60s'], env(), 65_000);
    const volumeName = (await json('get', 'pvc', 'busy')).spec.volumeName as string;
    const volume = await json('get', 'pv', volumeName);
    const path: string = volume.spec.local?.path ?? volume.spec.hostPath?.path;
    expect(existsSync(path)).toBe(true);

    await kubectl(['delete', 'pvc', 'busy', '--wait=false'], env());
    // Held by pvc-protection while the pod runs.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const held = await json('get', 'pvc', 'busy');
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(held.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);

    await deletePod('holder');
    await eventually(async () => expect(await exists('pvc', 'busy')).toBe(false), 30_000, 250);
    // Released, then removed by its provisioner with its directory (reclaim policy Delete).
    await eventually(async () => expect(await exists('pv', volumeName)).toBe(false), 60_000, 250);
    expect(existsSync(path)).toBe(false);
  }, 150_000);

  it('a Retain volume stays Released after its claim goes, its data kept', async () => {
    await create(
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'local-keep' },
        provisioner: 'svc.io/local-path',
        reclaimPolicy: 'Retain',
        volumeBindingMode: 'WaitForFirstConsumer',
      },
      claim('kept', { storageClassName: 'local-keep' }),
      pod('keeper', 'echo retained > /data/file', claimVolume('kept')),
    );
    await finished('keeper');
    const volumeName = (await json('get', 'pvc', 'kept')).spec.volumeName as string;
    const volume = await json('get', 'pv', volumeName);
    const path: string = volume.spec.local?.path ?? volume.spec.hostPath?.path;
    await deletePod('keeper');
    await kubectl(['delete', 'pvc', 'kept', '--timeout=60s'], env(), 65_000);
    await eventually(async () => expect((await json('get', 'pv', volumeName)).status.phase).toBe('Released'), 30_000, 250);
    expect(existsSync(join(path, 'file'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await json('get', 'pv', volumeName)).status.phase).toBe('Released');
  }, 120_000);

  it('an ephemeral volume gets a claim of its own, owned by the pod, and goes with it', async () => {
    const template = { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Mi' } } } };
    await create(pod('scratch', 'echo temp > /data/t && cat /data/t', [{ name: 'data', ephemeral: { volumeClaimTemplate: template } }]));
    expect(await finished('scratch')).toBe('temp\n');
    const made = await json('get', 'pvc', 'scratch-data');
    expect(made.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Pod', name: 'scratch', controller: true })]);
    const volumeName = made.spec.volumeName as string;
    await deletePod('scratch');
    await eventually(async () => expect(await exists('pvc', 'scratch-data')).toBe(false), 60_000, 250);
    await eventually(async () => expect(await exists('pv', volumeName)).toBe(false), 60_000, 250);
  }, 150_000);

  it("a StatefulSet of 2 keeps each ordinal's data across a rolling update and a pod deletion", async () => {
    const set = (marker: string) => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: {
        serviceName: 'db',
        replicas: 2,
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' }, annotations: { marker } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'main',
                image: 'busybox:1.36',
                // The first start of an ordinal writes its name; every start logs what the volume holds.
                command: ['sh', '-c', '[ -f /data/who ] || hostname > /data/who; cat /data/who; trap "exit 0" TERM; sleep 3600 & wait'],
                volumeMounts: [{ name: 'data', mountPath: '/data' }],
              },
            ],
          },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Mi' } } } }],
      },
    });
    await create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' } } }, set('one'));
    const ready = async () =>
      eventually(
        async () => {
          const status = (await json('get', 'statefulset', 'db')).status;
          expect(status.readyReplicas).toBe(2);
          expect(status.updatedReplicas).toBe(2);
        },
        90_000,
        500,
      );
    await ready();
    const claims = async () => Object.fromEntries((await json('get', 'pvc', '-l', 'app=db')).items.map((c: any) => [c.metadata.name, c.metadata.uid]));
    const before = await claims();
    expect(Object.keys(before).sort()).toEqual(['data-db-0', 'data-db-1']);
    const logsOf = async (name: string) => (await kubectl(['logs', name], env())).stdout.trim();
    expect([await logsOf('db-0'), await logsOf('db-1')]).toEqual(['db-0', 'db-1']);

    // A rolling update replaces both pods; each comes back to its own claim.
    const uids = { 0: (await cluster.getPod('db-0')).metadata.uid, 1: (await cluster.getPod('db-1')).metadata.uid };
    await kubectl(['patch', 'statefulset', 'db', '--type=merge', '-p', JSON.stringify({ spec: { template: { metadata: { annotations: { marker: 'two' } } } } })], env());
    await eventually(
      async () => {
        expect((await cluster.getPod('db-0')).metadata.uid).not.toBe(uids[0]);
        expect((await cluster.getPod('db-1')).metadata.uid).not.toBe(uids[1]);
      },
      90_000,
      500,
    );
    await ready();
    expect([await logsOf('db-0'), await logsOf('db-1')]).toEqual(['db-0', 'db-1']);

    // A deleted pod is made again on the same claim.
    await deletePod('db-1');
    await ready();
    expect(await logsOf('db-1')).toBe('db-1');
    expect(await claims()).toEqual(before);
  }, 300_000);
});

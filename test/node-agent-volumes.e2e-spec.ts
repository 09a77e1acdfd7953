import { existsSync, readFileSync } from 'node:fs';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

// The launcher's own module (plain JavaScript, run by npm start).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureDefaultStorageClass } = require('../bin/default-storage-class') as { ensureDefaultStorageClass: (svcconfig: string) => Promise<void> };

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent volume tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

function busybox(name: string, command: string, extra: Record<string, unknown> = {}) {
  return { name, image: 'busybox:1.36', command: ['sh', '-c', command], ...extra };
}

function pod(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 0, ...spec } };
}

/**
 * The node agent's part of volumes, on a real agent and real containers: its local path provisioner
 * makes the volume of a claim selected for its node, pods mount the claim (subPath, subPathExpr,
 * readOnly, fsGroup), a symlink out of the volume fails the container, a pod of an unbound claim
 * waits, and a Released Delete volume goes with its directory. No volume controller or scheduler runs
 * here: the test annotates and binds the claim as they would.
 */
describeWithRuntime('node agent: claims, the local path provisioner, subPath and ownership', () => {
  let cluster: NodeCluster;
  const env = () => cluster.env();
  const json = async (...args: string[]) => JSON.parse((await kubectl([...args, '-o', 'json'], env())).stdout);
  const phase = async (name: string) => (await cluster.getPod(name)).status?.phase;
  const logs = async (name: string) => (await kubectl(['logs', name], env())).stdout;
  const claimEvents = async (name: string) =>
    (await json('get', 'events', '--field-selector', `involvedObject.kind=PersistentVolumeClaim,involvedObject.name=${name}`)).items.map(
      (e: { reason: string; message: string }) => `${e.reason}: ${e.message}`,
    );

  /** What the volume controller does once a claim and its pre-bound volume meet. */
  async function bind(claim: string, volume: string): Promise<void> {
    await kubectl(['patch', 'pv', volume, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Bound"}}'], env());
    await kubectl(['patch', 'pvc', claim, '--type=merge', '-p', JSON.stringify({ spec: { volumeName: volume } })], env());
    const status = { status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '64Mi' } } };
    await kubectl(['patch', 'pvc', claim, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)], env());
  }

  beforeAll(async () => {
    // The agent acts as its node under Node and RBAC authorization, as npm start runs it: its claims, volumes and classes come through the bootstrap policy.
    cluster = await startNodeCluster({ apiserverArgs: ['--authorization-mode=Node,RBAC'], nodeIdentity: true });
    // The class as npm start makes it.
    await ensureDefaultStorageClass(cluster.apiserver.kubeconfig);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it("npm start's default class: local-path, the default, WaitForFirstConsumer and Delete, made once and never written over", async () => {
    const made = await json('get', 'storageclass', 'local-path');
    expect(made).toMatchObject({
      metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'svc.io/local-path',
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
    await kubectl(['annotate', 'storageclass', 'local-path', '--overwrite', 'storageclass.kubernetes.io/is-default-class=false', 'edited=yes'], env());
    const edited = await json('get', 'storageclass', 'local-path');
    await ensureDefaultStorageClass(cluster.apiserver.kubeconfig);
    const kept = await json('get', 'storageclass', 'local-path');
    expect(kept.metadata.annotations).toMatchObject({ 'storageclass.kubernetes.io/is-default-class': 'false', edited: 'yes' });
    expect(kept.metadata.resourceVersion).toBe(edited.metadata.resourceVersion);
  });

  let volumeName = '';
  let volumePath = '';

  it('a pod of an unbound claim waits with FailedMount; the claim selected for this node gets a local volume, and once bound the pod runs', async () => {
    await cluster.apply(
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: { storageClassName: 'local-path', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '64Mi' } } },
      },
      pod('writer', {
        securityContext: { fsGroup: 4321 },
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
        containers: [
          busybox(
            'main',
            'echo kept > /data/hello && echo sub > /sub/file && echo $POD_NAME > /per-pod/name && stat -c %g /data && ls -ld /data && (touch /ro/x 2>/dev/null && echo writable || echo read-only)',
            {
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              volumeMounts: [
                { name: 'data', mountPath: '/data' },
                { name: 'data', mountPath: '/sub', subPath: 'nested/dir' },
                { name: 'data', mountPath: '/per-pod', subPathExpr: 'pods/$(POD_NAME)' },
                { name: 'data', mountPath: '/ro', readOnly: true },
              ],
            },
          ),
        ],
      }),
    );
    await eventually(
      async () => {
        const events = (await json('get', 'events', '--field-selector', 'involvedObject.name=writer')).items;
        const failed = events.find((e: { reason: string }) => e.reason === 'FailedMount');
        expect(failed?.message).toBe(
          'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/data: PVC is not bound',
        );
      },
      30_000,
      250,
    );
    await eventually(
      async () => expect((await cluster.getPod('writer')).status.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating'),
      10_000,
      250,
    );

    // The volume controller names the provisioner, the scheduler the node.
    const claim = await json('get', 'pvc', 'data');
    await kubectl(
      ['annotate', 'pvc', 'data', 'volume.kubernetes.io/storage-provisioner=svc.io/local-path', `volume.kubernetes.io/selected-node=${cluster.agent.nodeName}`],
      env(),
    );
    volumeName = `pvc-${claim.metadata.uid}`;
    const volume = await eventually(async () => json('get', 'pv', volumeName), 20_000, 250);
    volumePath = volume.spec.local.path;
    expect(volume.metadata.annotations['pv.kubernetes.io/provisioned-by']).toBe('svc.io/local-path');
    expect(volume.spec).toMatchObject({
      capacity: { storage: '64Mi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'local-path',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: claim.metadata.uid },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [cluster.agent.nodeName] }] }] },
      },
    });
    expect(volumePath).toBe(`${cluster.agent.rootDir}/local-path-volumes/${volumeName}_default_data`);
    expect(existsSync(volumePath)).toBe(true);
    await eventually(
      async () =>
        expect(await claimEvents('data')).toEqual(
          expect.arrayContaining([
            'Provisioning: External provisioner is provisioning volume for claim "default/data"',
            `ProvisioningSucceeded: Successfully provisioned volume ${volumeName}`,
          ]),
        ),
      10_000,
      250,
    );

    await bind('data', volumeName);
    await eventually(async () => expect(await phase('writer')).toBe('Succeeded'), 40_000, 250);
    const output = (await logs('writer')).trim().split('\n');
    expect(output[0]).toBe('4321');
    expect(output[1]).toMatch(/^drwxrwsrwx/);
    expect(output[2]).toBe('read-only');
    expect(readFileSync(`${volumePath}/hello`, 'utf8')).toBe('kept\n');
    expect(readFileSync(`${volumePath}/nested/dir/file`, 'utf8')).toBe('sub\n');
    expect(readFileSync(`${volumePath}/pods/writer/name`, 'utf8')).toBe('writer\n');
  }, 120_000);

  it('a new pod on the same claim reads the data back; a claim mounted readOnly cannot be written', async () => {
    await kubectl(['delete', 'pod', 'writer', '--wait=true'], env(), 40_000);
    await cluster.apply(
      pod('reader', {
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: true } }],
        containers: [
          busybox('main', 'cat /data/hello /data/nested/dir/file; (touch /data/x 2>/dev/null && echo writable || echo read-only)', {
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          }),
        ],
      }),
    );
    await eventually(async () => expect(await phase('reader')).toBe('Succeeded'), 40_000, 250);
    expect(await logs('reader')).toBe('kept\nsub\nread-only\n');
  }, 60_000);

  it('a subPath through a symlink out of the volume fails the container with CreateContainerConfigError, mounting nothing', async () => {
    await cluster.apply(
      pod('linker', {
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
        containers: [busybox('main', 'ln -s /etc /data/escape && ln -s ../../.. /data/up', { volumeMounts: [{ name: 'data', mountPath: '/data' }] })],
      }),
    );
    await eventually(async () => expect(await phase('linker')).toBe('Succeeded'), 40_000, 250);
    await cluster.apply(
      pod('escaper', {
        restartPolicy: 'Always',
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
        containers: [
          busybox('main', 'sleep 3600', {
            env: [{ name: 'WHERE', value: 'up' }],
            volumeMounts: [
              { name: 'data', mountPath: '/host-etc', subPath: 'escape' },
              { name: 'data', mountPath: '/up', subPathExpr: '$(WHERE)' },
            ],
          }),
        ],
      }),
    );
    await eventually(
      async () => {
        const waiting = (await cluster.getPod('escaper')).status.containerStatuses?.[0]?.state?.waiting;
        expect(waiting).toMatchObject({
          reason: 'CreateContainerConfigError',
          message: 'failed to prepare subPath for volumeMount "data" of container "main"',
        });
      },
      30_000,
      250,
    );
    expect(cluster.agent.stderr()).toContain('not within volume path');
    const mounts = readFileSync('/proc/self/mounts', 'utf8');
    expect(mounts).not.toContain(`${cluster.agent.rootDir}/pods/${(await cluster.getPod('escaper')).metadata.uid}/volume-subpaths`);
    await kubectl(['delete', 'pod', 'escaper', 'linker', 'reader', '--wait=true'], env(), 40_000);
  }, 90_000);

  it('a generic ephemeral volume mounts the pod’s own claim <pod>-<volume>; an Immediate class is provisioned on the only node', async () => {
    await cluster.apply(
      { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'now' }, provisioner: 'svc.io/local-path', volumeBindingMode: 'Immediate' },
      pod('eph', {
        volumes: [
          {
            name: 'scratch',
            ephemeral: {
              volumeClaimTemplate: { spec: { storageClassName: 'now', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '16Mi' } } } },
            },
          },
        ],
        containers: [busybox('main', 'echo ephemeral > /scratch/f && cat /scratch/f', { volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] })],
      }),
    );
    // A node may read only its own Node; the provisioner counts the Nodes for an Immediate claim once a role lets it list them.
    await kubectl(['create', 'clusterrole', 'node-lister', '--verb=list', '--resource=nodes'], env());
    await kubectl(['create', 'clusterrolebinding', 'node-lister', '--clusterrole=node-lister', '--group=system:nodes'], env());
    const uid = (await cluster.getPod('eph')).metadata.uid;
    // What the ephemeral volume controller and the volume controller do: the claim, owned by the pod, naming its provisioner.
    await cluster.apply({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'eph-scratch',
        annotations: { 'volume.kubernetes.io/storage-provisioner': 'svc.io/local-path' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'eph', uid, controller: true, blockOwnerDeletion: true }],
      },
      spec: { storageClassName: 'now', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '16Mi' } } },
    });
    const claimUid = (await json('get', 'pvc', 'eph-scratch')).metadata.uid;
    const volume = await eventually(async () => json('get', 'pv', `pvc-${claimUid}`), 20_000, 250);
    expect(volume.spec.storageClassName).toBe('now');
    await bind('eph-scratch', volume.metadata.name);
    await eventually(async () => expect(await phase('eph')).toBe('Succeeded'), 40_000, 250);
    expect(await logs('eph')).toBe('ephemeral\n');
    expect(readFileSync(`${volume.spec.local.path}/f`, 'utf8')).toBe('ephemeral\n');
  }, 90_000);

  it('a Released volume of reclaim policy Delete goes, and its directory with it', async () => {
    await runKubectl(['delete', 'pvc', 'data', '--wait=false'], env());
    // No pvc-protection controller runs here: the finalizer goes as it would once no pod uses the claim.
    await runKubectl(['patch', 'pvc', 'data', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'], env());
    await kubectl(['patch', 'pv', volumeName, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Released"}}'], env());
    // Deleted: gone, or held by the pv-protection finalizer that admission puts on it (its controller does not run here).
    await eventually(
      async () => {
        const got = await runKubectl(['get', 'pv', volumeName, '-o', 'json'], env());
        if (got.code === 0) expect(JSON.parse(got.stdout).metadata.deletionTimestamp).toBeDefined();
      },
      20_000,
      250,
    );
    expect(existsSync(volumePath)).toBe(false);
  }, 60_000);
});

import { request as httpsRequest } from 'node:https';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PersistentVolume, PersistentVolumeClaim, Status } from '@svc/api';
import { decodeEnvelope, decodeProtobufObject, encodeProtobufObject } from '@svc/machinery';
import { ApiClient } from './support/api-client';
import { create, createNamespace, eventually, expectFailure, expectStatus, MERGE_PATCH } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// The storage kinds (PersistentVolume, PersistentVolumeClaim, StorageClass and the CSI kinds) and
// their admission plugins (DefaultStorageClass, StorageObjectInUseProtection,
// PersistentVolumeClaimResize) on the real svc-apiserver process, as kubectl 1.32 and a raw client
// meet them. No controller runs here: a claim is bound by hand, as the volume controller would.

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const DEFAULT_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'storage-e2e';
const claims = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
const classes = '/apis/storage.k8s.io/v1/storageclasses';

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
  await createNamespace(client, ns);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

async function kubectl(...args: string[]): Promise<string> {
  const res = await runKubectl(args, server.kubectlEnv);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

async function kubectlFails(...args: string[]): Promise<string> {
  const res = await runKubectl(args, server.kubectlEnv);
  if (res.code === 0) throw new Error(`kubectl ${args.join(' ')} succeeded but should have failed:\n${res.stdout}`);
  return res.stderr;
}

async function apply(name: string, manifest: string): Promise<string> {
  const file = join(server.dir, `${name}.yaml`);
  await writeFile(file, manifest);
  return kubectl('apply', '-f', file);
}

const claim = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

/** The class DefaultStorageClass gives a new claim now (a dry run: admission runs, nothing is stored). */
async function defaultedClass(): Promise<string | undefined> {
  const res = await client.post<PersistentVolumeClaim>(claims, claim('probe'), { dryRun: 'All' });
  expectStatus(res, 201);
  return res.body.spec?.storageClassName;
}

/** Binds a claim as the volume controller would: the volume's name on the claim, then its status. */
async function bind(name: string, capacity: string): Promise<void> {
  expectStatus(await client.patch(`${claims}/${name}`, MERGE_PATCH, { spec: { volumeName: `pv-${name}` } }), 200);
  const status = { status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: capacity } } };
  expectStatus(await client.patch(`${claims}/${name}/status`, MERGE_PATCH, status), 200);
}

const requestStorage = (storage: string) => ({ spec: { resources: { requests: { storage } } } });

describe('kubectl with the storage kinds', () => {
  it('creates, lists and describes classes, volumes and claims, with the default class and the protection finalizers applied', async () => {
    await apply(
      'storage',
      `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local-path
  annotations: { ${DEFAULT_ANNOTATION}: "true" }
provisioner: svc.io/local-path
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: { name: pv-data }
spec:
  capacity: { storage: 2Gi }
  accessModes: [ReadWriteOnce]
  storageClassName: local-path
  local: { path: /var/lib/svc/volumes/pv-data }
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions: [{ key: kubernetes.io/hostname, operator: In, values: [node-1] }]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data, namespace: ${ns} }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Gi } }
`,
    );
    const sc = await kubectl('get', 'sc');
    expect(sc).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE$/m);
    expect(sc).toMatch(/^local-path \(default\)\s+svc\.io\/local-path\s+Delete\s+WaitForFirstConsumer\s+false\s+\d+s$/m);
    const pv = await kubectl('get', 'pv');
    expect(pv).toMatch(/^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE$/m);
    expect(pv).toMatch(/^pv-data\s+2Gi\s+RWO\s+Retain\s+Pending\s+local-path\s+<unset>\s+\d+s$/m);
    const pvc = await kubectl('get', 'pvc', '-n', ns, '-o', 'wide');
    expect(pvc).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\s+VOLUMEMODE$/m);
    expect(pvc).toMatch(/^data\s+Pending\s+local-path\s+<unset>\s+\d+s\s+Filesystem$/m);
    const stored = JSON.parse(await kubectl('get', 'pvc', 'data', '-n', ns, '-o', 'json')) as PersistentVolumeClaim;
    expect(stored.spec?.storageClassName).toBe('local-path');
    expect(stored.metadata?.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    const volume = JSON.parse(await kubectl('get', 'pv', 'pv-data', '-o', 'json')) as PersistentVolume;
    expect(volume.metadata?.finalizers).toEqual(['kubernetes.io/pv-protection']);
    expect(volume.status).toEqual({ phase: 'Pending', lastPhaseTransitionTime: expect.any(String) });
    expect(await kubectl('describe', 'pvc', 'data', '-n', ns)).toMatch(/^StorageClass:\s+local-path$/m);
    const described = await kubectl('describe', 'pv', 'pv-data');
    expect(described).toMatch(/^Finalizers:\s+\[kubernetes\.io\/pv-protection\]$/m);
    expect(described).toMatch(/^\s+Type:\s+LocalVolume/m);
    expect(await kubectl('describe', 'sc', 'local-path')).toMatch(/^IsDefaultClass:\s+Yes$/m);
  });

  it('gives claims the newest of two default classes, and none to a claim that asks for none', async () => {
    const first = (await client.get<{ metadata: { creationTimestamp: string } }>(`${classes}/local-path`)).body.metadata.creationTimestamp;
    // Creation times are whole seconds: the second default must be made in a later one to be the newer.
    await eventually(() => Promise.resolve(new Date().toISOString().slice(0, 19) > first.slice(0, 19) || Promise.reject(new Error('same second'))), 2_000);
    await create(client, classes, { metadata: { name: 'fast', annotations: { [DEFAULT_ANNOTATION]: 'true' } }, provisioner: 'example.com/fast' });
    await eventually(async () => expect(await defaultedClass()).toBe('fast'));
    const none = await create<PersistentVolumeClaim>(client, claims, claim('none', { storageClassName: '' }));
    expect(none.spec?.storageClassName).toBe('');
    expectStatus(await client.patch(`${classes}/fast`, MERGE_PATCH, { metadata: { annotations: { [DEFAULT_ANNOTATION]: 'false' } } }), 200);
    await eventually(async () => expect(await defaultedClass()).toBe('local-path'));
  });

  it('refuses growth of a claim whose class does not allow expansion, a shrink below its capacity and changes of its fixed fields', async () => {
    await create(client, claims, claim('fixed', { storageClassName: 'local-path' }));
    // Growth of an unbound claim is a change of its fixed spec.
    const unbound = expectFailure(await client.patch(`${claims}/fixed`, MERGE_PATCH, requestStorage('2Gi')), 422, 'Invalid');
    expect(unbound.message).toMatch(
      /spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims/,
    );
    await bind('fixed', '1Gi');
    const resize = expectFailure(await client.patch(`${claims}/fixed`, MERGE_PATCH, requestStorage('2Gi')), 403, 'Forbidden');
    expect(resize.message).toBe(
      'persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    const shrink = expectFailure(await client.patch(`${claims}/fixed`, MERGE_PATCH, requestStorage('512Mi')), 422, 'Invalid');
    expect(shrink.details?.causes).toEqual([
      { reason: 'FieldValueForbidden', field: 'spec.resources.requests.storage', message: 'Forbidden: field can not be less than status.capacity' },
    ]);
    expect(shrink.message).toBe(
      'PersistentVolumeClaim "fixed" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    );
    const modes = await kubectlFails('patch', 'pvc', 'fixed', '-n', ns, '--type=merge', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}');
    expect(modes).toMatch(/spec is immutable after creation/);
  });

  it('lets a bound claim grow when its class allows volume expansion', async () => {
    await create(client, classes, { metadata: { name: 'expandable' }, provisioner: 'svc.io/local-path', allowVolumeExpansion: true });
    await create(client, claims, claim('growing', { storageClassName: 'expandable' }));
    await bind('growing', '1Gi');
    await eventually(async () => expectStatus(await client.patch(`${claims}/growing`, MERGE_PATCH, requestStorage('3Gi')), 200));
    expect(await kubectl('get', 'pvc', 'growing', '-n', ns, '-o', 'jsonpath={.spec.resources.requests.storage}')).toBe('3Gi');
  });

  it("keeps a class's provisioner, parameters, reclaim policy and binding mode", async () => {
    const status = expectFailure(
      await client.patch(`${classes}/expandable`, MERGE_PATCH, { parameters: { tier: 'gold' }, reclaimPolicy: 'Retain' }),
      422,
      'Invalid',
    );
    expect((status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`)).toEqual([
      'parameters: Forbidden: updates to parameters are forbidden.',
      'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    ]);
  });

  it("refuses a volume without a source, a local one without node affinity, and a pod whose subPath leaves its volume, in Kubernetes' words", async () => {
    const volume = (spec: Record<string, unknown>) => ({
      metadata: { name: 'bad' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...spec },
    });
    const bare = expectFailure(await client.post('/api/v1/persistentvolumes', volume({})), 422, 'Invalid');
    expect(bare.message).toBe('PersistentVolume "bad" is invalid: spec: Required value: must specify a volume type');
    const local = expectFailure(await client.post('/api/v1/persistentvolumes', volume({ local: { path: '/data' } })), 422, 'Invalid');
    expect(local.message).toBe('PersistentVolume "bad" is invalid: spec.nodeAffinity: Required value: Local volume requires node affinity');
    await writeFile(
      join(server.dir, 'escape.yaml'),
      `apiVersion: v1
kind: Pod
metadata: { name: escape, namespace: ${ns} }
spec:
  containers:
    - name: c
      image: busybox:1.36
      volumeMounts: [{ name: data, mountPath: /data, subPath: ../../etc }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
`,
    );
    expect(await kubectlFails('create', '-f', join(server.dir, 'escape.yaml'))).toMatch(
      /spec\.containers\[0\]\.volumeMounts\.subPath: Invalid value: "\.\.\/\.\.\/etc": must not contain '\.\.'/,
    );
  });

  it('serves the CSI kinds with their columns, and no VolumeAttributesClass (off in 1.32)', async () => {
    await create(client, '/apis/storage.k8s.io/v1/csidrivers', { metadata: { name: 'hostpath.csi.example.com' }, spec: { attachRequired: false } });
    await create(client, '/apis/storage.k8s.io/v1/volumeattachments', {
      metadata: { name: 'va-1' },
      spec: { attacher: 'hostpath.csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-data' } },
    });
    expect(await kubectl('get', 'csidrivers')).toMatch(/^hostpath\.csi\.example\.com\s+false\s+false\s+false\s+<unset>\s+false\s+Persistent\s+\d+s$/m);
    expect(await kubectl('get', 'volumeattachments')).toMatch(/^va-1\s+hostpath\.csi\.example\.com\s+pv-data\s+node-1\s+false\s+\d+s$/m);
    expect(await kubectlFails('get', 'volumeattributesclasses')).toMatch(/the server doesn't have a resource type "volumeattributesclasses"/);
  });
});

describe('the storage kinds in protobuf', () => {
  function call(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(`${server.url}${path}`, { method, headers, ca: server.ca, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('takes a claim in Kubernetes’ message and answers with it, every field kept', async () => {
    const sent = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'wire', namespace: ns },
      spec: {
        accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
        resources: { requests: { storage: '5Gi' }, limits: { storage: '10Gi' } },
        storageClassName: 'local-path',
        volumeMode: 'Filesystem',
        selector: { matchLabels: { tier: 'db' } },
        dataSource: { kind: 'PersistentVolumeClaim', name: 'data' },
      },
    };
    const res = await call('POST', claims, { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, Buffer.from(encodeProtobufObject(sent)));
    expect(res.status).toBe(201);
    const created = decodeProtobufObject(decodeEnvelope(res.body)) as PersistentVolumeClaim;
    expect(created.spec).toMatchObject({ ...sent.spec, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'data' } });
    expect(created.metadata?.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    const json = (await client.get<PersistentVolumeClaim>(`${claims}/wire`)).body;
    const read = await call('GET', '/api/v1/persistentvolumes/pv-data', { Accept: PROTOBUF });
    expect(read.status).toBe(200);
    expect(decodeProtobufObject(decodeEnvelope(read.body))).toEqual((await client.get<Status>('/api/v1/persistentvolumes/pv-data')).body);
    expect(json.spec).toEqual(created.spec);
  });
});

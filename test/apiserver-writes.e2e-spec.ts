import { request as httpsRequest } from 'node:https';
import type { ConfigMap, Deployment, Lease, List, Namespace, Pod, Scale, Status } from '@svc/api';
import { ApiClient } from './support/api-client';
import {
  JSON_PATCH,
  MERGE_PATCH,
  STRATEGIC_MERGE_PATCH,
  compareRv,
  configMap,
  create,
  createNamespace,
  deployment,
  expectFailure,
  expectStatus,
  lease,
  paths,
  pod,
  rvOf,
} from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';

// Writes through the resource interface: server-set metadata, conflicts, patches, subresources,
// defaulting and validation, field validation, dry-run, two-phase deletion, namespace lifecycle,
// body limits and deletecollection, against the real svc-apiserver process.

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'writes';

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
  await createNamespace(client, ns);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const causeFields = (status: Status) => (status.details?.causes ?? []).map((c) => c.field);
const warnings = (headers: Record<string, string | string[] | undefined>) => {
  const value = headers.warning;
  return value === undefined ? '' : Array.isArray(value) ? value.join(', ') : value;
};

describe('server-set metadata', () => {
  it('sets uid, creationTimestamp and resourceVersion on create, ignoring what the client sent', async () => {
    const before = Date.now();
    const res = await client.post<ConfigMap>(paths.configMaps(ns), {
      ...configMap('meta', { k: 'v' }),
      metadata: { name: 'meta', uid: 'chosen-by-client', creationTimestamp: '2000-01-01T00:00:00Z' },
    });
    expectStatus(res, 201);
    const meta = res.body.metadata ?? {};
    expect(res.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } });
    expect(meta.namespace).toBe(ns);
    expect(meta.uid).toMatch(UUID);
    expect(meta.creationTimestamp).toMatch(RFC3339);
    expect(Date.parse(meta.creationTimestamp as string)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(Date.parse(meta.creationTimestamp as string)).toBeLessThanOrEqual(Date.now() + 1000);
    expect(meta.resourceVersion).toMatch(/^\d+$/);
    expect(meta.deletionTimestamp).toBeUndefined();

    const got = await client.get<ConfigMap>(paths.configMap(ns, 'meta'));
    expect(got.body.metadata).toMatchObject({ uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp });

    // Updates keep creationTimestamp whatever the body says; the uid is immutable (422).
    const put = await client.put<ConfigMap>(paths.configMap(ns, 'meta'), {
      ...got.body,
      metadata: { ...got.body.metadata, creationTimestamp: '2001-01-01T00:00:00Z' },
      data: { k: 'v2' },
    });
    expectStatus(put, 200);
    expect(put.body.metadata).toMatchObject({ uid: meta.uid, creationTimestamp: meta.creationTimestamp });
    expect(compareRv(rvOf(put.body), rvOf(res.body))).toBeGreaterThan(0);
    const uidChange = await client.put(paths.configMap(ns, 'meta'), { ...put.body, metadata: { ...put.body.metadata, uid: 'other' } });
    expect(causeFields(expectFailure(uidChange, 422, 'Invalid'))).toEqual(['metadata.uid']);
  });

  it('answers 409 AlreadyExists for a second create of the same name', async () => {
    await create(client, paths.configMaps(ns), configMap('twice'));
    const status = expectFailure(await client.post(paths.configMaps(ns), configMap('twice')), 409, 'AlreadyExists');
    expect(status.message).toBe('configmaps "twice" already exists');
    expect(status.details).toMatchObject({ name: 'twice', kind: 'configmaps' });
  });

  it('generates a unique name from generateName', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } };
    const [a, b] = await Promise.all([client.post<ConfigMap>(paths.configMaps(ns), body), client.post<ConfigMap>(paths.configMaps(ns), body)]);
    expectStatus(a, 201);
    expectStatus(b, 201);
    expect(a.body.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(b.body.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(a.body.metadata?.name).not.toBe(b.body.metadata?.name);
    expect(a.body.metadata?.generateName).toBe('gen-');
    expectStatus(await client.get(paths.configMap(ns, a.body.metadata?.name ?? '')), 200);
  });

  it('requires a name or generateName (422)', async () => {
    const status = expectFailure(await client.post(paths.configMaps(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }), 422, 'Invalid');
    expect(causeFields(status)).toContain('metadata.name');
  });

  it('refuses a body whose namespace or name differs from the path (400)', async () => {
    const wrongNs = await client.post(paths.configMaps(ns), { ...configMap('x'), metadata: { name: 'x', namespace: 'default' } });
    expectFailure(wrongNs, 400, 'BadRequest');
    await create(client, paths.configMaps(ns), configMap('named'));
    expectFailure(await client.put(paths.configMap(ns, 'named'), configMap('other-name')), 400, 'BadRequest');
  });

  it('starts generation at 1 for a Deployment and bumps it on spec changes only', async () => {
    const created = await create<Deployment>(client, paths.deployments(ns), deployment('gen'));
    expect(created.metadata?.generation).toBe(1);
    const labelled = await client.patch<Deployment>(paths.deployment(ns, 'gen'), MERGE_PATCH, {
      metadata: { labels: { extra: 'yes' }, annotations: { a: 'b' } },
    });
    expectStatus(labelled, 200);
    expect(labelled.body.metadata?.generation).toBe(1);
    const changed = await client.patch<Deployment>(paths.deployment(ns, 'gen'), MERGE_PATCH, { spec: { replicas: 4 } });
    expectStatus(changed, 200);
    expect(changed.body.metadata?.generation).toBe(2);
    const status = await client.patch<Deployment>(`${paths.deployment(ns, 'gen')}/status`, MERGE_PATCH, { status: { replicas: 4, observedGeneration: 2 } });
    expectStatus(status, 200);
    expect(status.body.metadata?.generation).toBe(2);
    // A no-op write changes nothing, not even the resourceVersion.
    const same = await client.put<Deployment>(paths.deployment(ns, 'gen'), status.body);
    expectStatus(same, 200);
    expect(same.body.metadata?.generation).toBe(2);
    expect(rvOf(same.body)).toBe(rvOf(status.body));
  });
});

describe('updates', () => {
  it('answers 409 Conflict to a PUT with a stale resourceVersion, and accepts the current one', async () => {
    const created = await create<ConfigMap>(client, paths.configMaps(ns), configMap('locked', { v: '1' }));
    const first = await client.put<ConfigMap>(paths.configMap(ns, 'locked'), { ...created, data: { v: '2' } });
    expectStatus(first, 200);
    const stale = await client.put(paths.configMap(ns, 'locked'), { ...created, data: { v: '3' } });
    const status = expectFailure(stale, 409, 'Conflict');
    expect(status.message).toBe(
      'Operation cannot be fulfilled on configmaps "locked": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((await client.get<ConfigMap>(paths.configMap(ns, 'locked'))).body.data).toEqual({ v: '2' });
    // A merge patch carrying a stale resourceVersion is refused the same way.
    expectFailure(
      await client.patch(paths.configMap(ns, 'locked'), MERGE_PATCH, { metadata: { resourceVersion: rvOf(created) }, data: { v: '4' } }),
      409,
      'Conflict',
    );
    // Without a resourceVersion the update is unconditional.
    const unconditional = await client.put<ConfigMap>(paths.configMap(ns, 'locked'), configMap('locked', { v: '5' }));
    expectStatus(unconditional, 200);
    expect(unconditional.body.data).toEqual({ v: '5' });
  });

  it('creates on PUT where the kind allows it (Lease) and answers 404 where it does not (ConfigMap)', async () => {
    const createdLease = await client.put<Lease>(paths.lease(ns, 'holder'), lease('holder', 'node-1'));
    expectStatus(createdLease, 201);
    expect(createdLease.body.metadata?.uid).toMatch(UUID);
    expect(createdLease.body.spec?.holderIdentity).toBe('node-1');
    const renewed = await client.put<Lease>(paths.lease(ns, 'holder'), { ...createdLease.body, spec: { holderIdentity: 'node-2' } });
    expectStatus(renewed, 200);
    expect(renewed.body.metadata?.uid).toBe(createdLease.body.metadata?.uid);

    const missing = expectFailure(await client.put(paths.configMap(ns, 'never-created'), configMap('never-created')), 404, 'NotFound');
    expect(missing.message).toBe('configmaps "never-created" not found');
    expectFailure(await client.get(paths.configMap(ns, 'never-created')), 404, 'NotFound');
  });
});

describe('patch', () => {
  it('merge patch: adds, replaces and removes (null) keys', async () => {
    await create(client, paths.configMaps(ns), configMap('merge', { keep: '1', change: '1', drop: '1' }, { a: '1' }));
    const res = await client.patch<ConfigMap>(paths.configMap(ns, 'merge'), MERGE_PATCH, {
      metadata: { labels: { b: '2' } },
      data: { change: '2', drop: null, add: '3' },
    });
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ keep: '1', change: '2', add: '3' });
    expect(res.body.metadata?.labels).toEqual({ a: '1', b: '2' });
  });

  it('JSON patch: add, replace, remove; a malformed patch is 400', async () => {
    await create(client, paths.configMaps(ns), configMap('jsonpatch', { old: '1', same: '1' }));
    const res = await client.patch<ConfigMap>(paths.configMap(ns, 'jsonpatch'), JSON_PATCH, [
      { op: 'add', path: '/data/new', value: 'n' },
      { op: 'replace', path: '/data/same', value: '2' },
      { op: 'remove', path: '/data/old' },
      { op: 'add', path: '/metadata/labels', value: { via: 'json-patch' } },
    ]);
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ new: 'n', same: '2' });
    expect(res.body.metadata?.labels).toEqual({ via: 'json-patch' });
    expectFailure(await client.patch(paths.configMap(ns, 'jsonpatch'), JSON_PATCH, { op: 'add' }), 400, 'BadRequest');
  });

  it('strategic merge patch merges containers by name, honours $patch: delete; a merge patch replaces the list', async () => {
    const containers = [
      { name: 'app', image: 'registry.example/app:1.0' },
      { name: 'sidecar', image: 'registry.example/proxy:1.0' },
    ];
    await create(client, paths.deployments(ns), deployment('smp', { containers }));
    const smp = await client.patch<Deployment>(paths.deployment(ns, 'smp'), STRATEGIC_MERGE_PATCH, {
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'registry.example/proxy:2.0' }] } } },
    });
    expectStatus(smp, 200);
    expect(smp.body.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'app=registry.example/app:1.0',
      'sidecar=registry.example/proxy:2.0',
    ]);
    // Defaults of the untouched container survive the merge.
    expect(smp.body.spec?.template.spec?.containers[0].imagePullPolicy).toBe('IfNotPresent');

    const removed = await client.patch<Deployment>(paths.deployment(ns, 'smp'), STRATEGIC_MERGE_PATCH, {
      spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } },
    });
    expectStatus(removed, 200);
    expect(removed.body.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['app']);

    const replaced = await client.patch<Deployment>(paths.deployment(ns, 'smp'), MERGE_PATCH, {
      spec: { template: { spec: { containers: [{ name: 'only', image: 'registry.example/only:1.0' }] } } },
    });
    expectStatus(replaced, 200);
    expect(replaced.body.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['only']);
  });

  it('answers 415 for an unknown patch type and 404 for a missing object', async () => {
    await create(client, paths.configMaps(ns), configMap('patch-types'));
    expectFailure(await client.patch(paths.configMap(ns, 'patch-types'), 'application/x-not-a-patch', { data: {} }), 415, 'UnsupportedMediaType');
    expectFailure(await client.patch(paths.configMap(ns, 'no-such'), MERGE_PATCH, { data: { a: 'b' } }), 404, 'NotFound');
  });
});

describe('subresources', () => {
  it('status: create drops status; writes to the object leave status alone; writes to /status change status only', async () => {
    const body = { ...deployment('stat', { replicas: 2 }), status: { replicas: 7 } };
    const created = await client.post<Deployment>(paths.deployments(ns), body);
    expectStatus(created, 201);
    expect(created.body.status?.replicas).toBeUndefined();

    const mainWrite = await client.put<Deployment>(paths.deployment(ns, 'stat'), { ...created.body, status: { replicas: 5, readyReplicas: 5 } });
    expectStatus(mainWrite, 200);
    expect(mainWrite.body.status?.replicas).toBeUndefined();

    const got = await client.get<Deployment>(`${paths.deployment(ns, 'stat')}/status`);
    expectStatus(got, 200);
    expect(got.body).toMatchObject({ kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'stat' } });

    const statusWrite = await client.put<Deployment>(`${paths.deployment(ns, 'stat')}/status`, {
      ...got.body,
      spec: { ...got.body.spec, replicas: 9 },
      status: { replicas: 2, readyReplicas: 1, observedGeneration: 1 },
    });
    expectStatus(statusWrite, 200);
    expect(statusWrite.body.status).toMatchObject({ replicas: 2, readyReplicas: 1, observedGeneration: 1 });
    expect(statusWrite.body.spec?.replicas).toBe(2);
    expect(statusWrite.body.metadata?.generation).toBe(1);

    const after = await client.get<Deployment>(paths.deployment(ns, 'stat'));
    expect(after.body.spec?.replicas).toBe(2);
    expect(after.body.status).toMatchObject({ replicas: 2, readyReplicas: 1 });
  });

  it('scale: a ReplicaSet has one too', async () => {
    const rs = { ...deployment('rs-scaled', { replicas: 1 }), apiVersion: 'apps/v1', kind: 'ReplicaSet' };
    await create(client, '/apis/apps/v1/namespaces/writes/replicasets', rs);
    const scalePath = '/apis/apps/v1/namespaces/writes/replicasets/rs-scaled/scale';
    const got = await client.get<Scale>(scalePath);
    expectStatus(got, 200);
    expect(got.body).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 }, status: { selector: 'app=rs-scaled' } });
    const patched = await client.patch<Scale>(scalePath, MERGE_PATCH, { spec: { replicas: 4 } });
    expectStatus(patched, 200);
    expect((await client.get<Deployment>('/apis/apps/v1/namespaces/writes/replicasets/rs-scaled')).body.spec?.replicas).toBe(4);
  });

  it('answers 404 for a status subresource the kind does not have', async () => {
    await create(client, paths.configMaps(ns), configMap('no-status'));
    expectFailure(await client.get(`${paths.configMap(ns, 'no-status')}/status`), 404, 'NotFound');
  });

  it('scale: GET and PUT autoscaling/v1 Scale for a Deployment', async () => {
    await create(client, paths.deployments(ns), deployment('web', { replicas: 2 }));
    const scalePath = `${paths.deployment(ns, 'web')}/scale`;
    const got = await client.get<Scale>(scalePath);
    expectStatus(got, 200);
    expect(got.body).toMatchObject({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: ns },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=web' },
    });
    expect(got.body.metadata?.resourceVersion).toMatch(/^\d+$/);

    const put = await client.put<Scale>(scalePath, { ...got.body, spec: { replicas: 5 } });
    expectStatus(put, 200);
    expect(put.body).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
    const dep = await client.get<Deployment>(paths.deployment(ns, 'web'));
    expect(dep.body.spec?.replicas).toBe(5);
    expect(dep.body.metadata?.generation).toBe(2);

    const patched = await client.patch<Scale>(scalePath, MERGE_PATCH, { spec: { replicas: 3 } });
    expectStatus(patched, 200);
    expect(patched.body.spec?.replicas).toBe(3);
    expect((await client.get<Deployment>(paths.deployment(ns, 'web'))).body.spec?.replicas).toBe(3);

    expectFailure(
      await client.put(scalePath, { ...got.body, metadata: { ...got.body.metadata, resourceVersion: undefined }, spec: { replicas: -1 } }),
      422,
      'Invalid',
    );
    expectFailure(await client.put(scalePath, { ...got.body, spec: { replicas: 4 } }), 409, 'Conflict');
  });
});

describe('defaulting and validation', () => {
  it('defaults a Deployment as Kubernetes does', async () => {
    const created = await create<Deployment>(client, paths.deployments(ns), deployment('defaults'));
    expect(created.spec).toMatchObject({
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    expect(created.spec?.template.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
    });
    expect(created.spec?.template.spec?.containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    // Values given are kept.
    const given = deployment('given');
    Object.assign(given.spec as object, { revisionHistoryLimit: 3, strategy: { type: 'Recreate' } });
    const kept = await create<Deployment>(client, paths.deployments(ns), given);
    expect(kept.spec).toMatchObject({ revisionHistoryLimit: 3, strategy: { type: 'Recreate' } });
    expect(kept.spec?.strategy?.rollingUpdate).toBeUndefined();
  });

  it('answers 422 Invalid listing every field cause, and stores nothing', async () => {
    const bad = deployment('Bad_Name', { replicas: -1 });
    (bad.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = { app: 'other' };
    bad.metadata = { ...bad.metadata, labels: { 'bad label!': 'x' } };
    const res = await client.post(paths.deployments(ns), bad);
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.message).toMatch(/^Deployment\.apps "Bad_Name" is invalid: /);
    expect(status.details).toMatchObject({ name: 'Bad_Name', group: 'apps', kind: 'Deployment' });
    expect(causeFields(status)).toEqual(expect.arrayContaining(['metadata.name', 'metadata.labels', 'spec.replicas', 'spec.template.metadata.labels']));
    for (const cause of status.details?.causes ?? []) expect(cause).toMatchObject({ reason: expect.stringMatching(/^Field/), message: expect.any(String) });
    const list = await client.get<List<Deployment>>(paths.deployments(ns));
    expect(list.body.items.map((d) => d.metadata?.name)).not.toContain('Bad_Name');

    const cm = expectFailure(await client.post(paths.configMaps(ns), configMap('cm-bad-key', { 'bad key': 'v' })), 422, 'Invalid');
    expect(causeFields(cm)).toContain('data[bad key]');
  });

  it('answers 400 for a wrong field type or malformed JSON, and for a missing required field it names the field', async () => {
    const wrongType = { ...deployment('typed'), spec: { ...deployment('typed').spec, replicas: 'three' } };
    const typed = expectFailure(await client.post(paths.deployments(ns), wrongType), 400, 'BadRequest');
    expect(typed.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    expectFailure(
      await client.request('POST', paths.configMaps(ns), { body: '{"apiVersion":"v1","kind":"ConfigMap",', contentType: 'application/json' }),
      400,
      'BadRequest',
    );
    // An unknown field that is also invalid for another reason fails with 400 at every level.
    const both = await client.post(paths.deployments(ns), { ...wrongType, bogus: true }, { fieldValidation: 'Ignore' });
    expectFailure(both, 400, 'BadRequest');

    const noImage = deployment('no-image', { containers: [{ name: 'app' } as { name: string; image: string }] });
    const missing = await client.post<Status>(paths.deployments(ns), noImage);
    // The interface calls this a 400, Kubernetes a 422: either way it is refused and names the field.
    expect([400, 422]).toContain(missing.status);
    expect(missing.body.message).toContain('image');
  });
});

describe("a body that does not decode into a built-in kind: 400 in the words of Go's JSON decoder", () => {
  const cannotBeHandled = (kind: string, detail: string) => `${kind} in version "v1" cannot be handled as a ${kind}: ${detail}`;

  it('names the innermost struct, the path of field names from the root and the Go type, on create, update and the status subresource', async () => {
    const labelled = { ...configMap('decode-labels'), metadata: { name: 'decode-labels', labels: 5 } };
    const labels = expectFailure(await client.post(paths.configMaps(ns), labelled), 400, 'BadRequest');
    expect(labels.message).toBe(
      cannotBeHandled('ConfigMap', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type map[string]string'),
    );

    const noList = { ...pod('decode-containers'), spec: { containers: {} } };
    const containers = expectFailure(await client.post(paths.pods(ns), noList), 400, 'BadRequest');
    expect(containers.message).toBe(
      cannotBeHandled('Pod', 'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container'),
    );

    const env = pod('decode-env');
    (env.spec.containers[0] as unknown as Record<string, unknown>).env = [{ name: 'A', value: 5 }];
    expect(expectFailure(await client.post(paths.pods(ns), env), 400, 'BadRequest').message).toBe(
      cannotBeHandled('Pod', 'json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value of type string'),
    );

    const stored = await create<ConfigMap>(client, paths.configMaps(ns), configMap('decode-update', { a: '1' }));
    const update = await client.put(paths.configMap(ns, 'decode-update'), { ...stored, data: { a: 1 } });
    expect(expectFailure(update, 400, 'BadRequest').message).toBe(
      cannotBeHandled('ConfigMap', 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string'),
    );

    const dep = await create<Deployment>(client, paths.deployments(ns), deployment('decode-status'));
    const status = await client.put(`${paths.deployment(ns, 'decode-status')}/status`, { ...dep, status: { replicas: 'two' } });
    expect(expectFailure(status, 400, 'BadRequest').message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentStatus.status.replicas of type int32',
    );
  });

  it('gives only the first error in document order, ahead of unknown fields under Strict and of every validation error', async () => {
    const body = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'Not_A_Name' },
      bogus: true,
      spec: { terminationGracePeriodSeconds: 'soon', containers: [{ name: 'app', image: 'x', stdin: 'yes' }] },
    };
    const res = await client.post(paths.pods(ns), body, { fieldValidation: 'Strict' });
    expect(expectFailure(res, 400, 'BadRequest').message).toBe(
      cannotBeHandled('Pod', 'json: cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64'),
    );
  });

  it("Quantity, IntOrString and a Secret's bytes answer with their own decoders' words", async () => {
    const secret = (data: Record<string, string>, name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data });
    const secrets = `/api/v1/namespaces/${ns}/secrets`;
    expect(expectFailure(await client.post(secrets, secret({ password: 'not base64!' }, 'decode-secret')), 400, 'BadRequest').message).toBe(
      cannotBeHandled('Secret', 'illegal base64 data at input byte 3'),
    );
    // Go's decoder skips line breaks, as base64 tools write them every 76 characters.
    expectStatus(await client.post(secrets, secret({ password: 'c2VjcmV0\nc2VjcmV0' }, 'decode-secret-lines')), 201);

    const limits = pod('decode-quantity');
    limits.spec.containers[0].resources = { limits: { cpu: 'lots' } };
    expect(expectFailure(await client.post(paths.pods(ns), limits), 400, 'BadRequest').message).toBe(
      cannotBeHandled('Pod', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    );
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'decode-port' }, spec: { ports: [{ port: 80, targetPort: true }] } };
    expect(expectFailure(await client.post(`/api/v1/namespaces/${ns}/services`, service), 400, 'BadRequest').message).toBe(
      cannotBeHandled('Service', 'json: cannot unmarshal bool into Go value of type int32'),
    );
  });

  it('a YAML body is read as the JSON it converts to: the same answer', async () => {
    const yaml =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: decode-yaml\nspec:\n  replicas: three\n  selector:\n    matchLabels: {app: y}\n  template:\n    metadata:\n      labels: {app: y}\n    spec:\n      containers: [{name: app, image: x}]\n';
    const res = await client.request('POST', paths.deployments(ns), { body: yaml, contentType: 'application/yaml' });
    expect(expectFailure(res, 400, 'BadRequest').message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    expectFailure(await client.get(paths.deployment(ns, 'decode-yaml')), 404, 'NotFound');
  });
});

describe('field validation', () => {
  const unknownFields = { ...configMap('fv'), bogus: 1, metadata: { name: 'fv', bogusMeta: 'x' } };

  it('Strict: 400 listing unknown fields; nothing stored', async () => {
    const res = await client.post(paths.configMaps(ns), unknownFields, { fieldValidation: 'Strict' });
    const status = expectFailure(res, 400, 'BadRequest');
    expect(status.message).toContain('strict decoding error');
    expect(status.message).toContain('unknown field "bogus"');
    expect(status.message).toContain('unknown field "metadata.bogusMeta"');
    expectFailure(await client.get(paths.configMap(ns, 'fv')), 404, 'NotFound');
  });

  it('Strict: names a nested unknown field by its full path', async () => {
    const dep = deployment('fv-nested');
    (dep.spec?.template.spec?.containers[0] as unknown as Record<string, unknown>).bogus = true;
    const status = expectFailure(await client.post(paths.deployments(ns), dep, { fieldValidation: 'Strict' }), 400, 'BadRequest');
    expect(status.message).toContain('unknown field "spec.template.spec.containers[0].bogus"');
  });

  it('Strict: 400 for a duplicate field', async () => {
    const text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1","a":"2"}}';
    const res = await client.request('POST', paths.configMaps(ns), { body: text, query: { fieldValidation: 'Strict' } });
    const status = expectFailure(res, 400, 'BadRequest');
    expect(status.message).toMatch(/duplicate field "(data\.)?a"/);
    expectFailure(await client.get(paths.configMap(ns, 'dup')), 404, 'NotFound');
  });

  it('Strict applies to updates and patches too', async () => {
    await create(client, paths.configMaps(ns), configMap('fv-update'));
    expectFailure(
      await client.put(paths.configMap(ns, 'fv-update'), { ...configMap('fv-update'), bogus: 1 }, { fieldValidation: 'Strict' }),
      400,
      'BadRequest',
    );
    expectFailure(await client.patch(paths.configMap(ns, 'fv-update'), MERGE_PATCH, { bogus: 1 }, { fieldValidation: 'Strict' }), 400, 'BadRequest');
  });

  it('Warn (and the default): succeeds with one Warning header item per unknown or duplicate field, dropping them', async () => {
    for (const fieldValidation of ['Warn', undefined]) {
      const name = `fv-warn-${fieldValidation ?? 'default'}`.toLowerCase();
      const res = await client.post<ConfigMap>(paths.configMaps(ns), { ...unknownFields, metadata: { name, bogusMeta: 'x' } }, { fieldValidation });
      expectStatus(res, 201);
      const warning = warnings(res.headers);
      expect(warning).toMatch(/299 - "unknown field \\"bogus\\""/);
      expect(warning).toMatch(/299 - "unknown field \\"metadata\.bogusMeta\\""/);
      expect(Object.keys(res.body)).not.toContain('bogus');
      const stored = await client.get<Record<string, unknown>>(paths.configMap(ns, name));
      expect(stored.body).not.toHaveProperty('bogus');
    }
    const dup = await client.request('POST', paths.configMaps(ns), {
      body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-warn"},"data":{"a":"1","a":"2"}}',
      query: { fieldValidation: 'Warn' },
    });
    expectStatus(dup, 201);
    expect(warnings(dup.headers)).toMatch(/duplicate field \\"(data\.)?a\\"/);
  });

  it('Ignore: succeeds silently, dropping the fields', async () => {
    const res = await client.post<ConfigMap>(
      paths.configMaps(ns),
      { ...unknownFields, metadata: { name: 'fv-ignore', bogusMeta: 'x' } },
      { fieldValidation: 'Ignore' },
    );
    expectStatus(res, 201);
    expect(res.headers.warning).toBeUndefined();
    expect(Object.keys(res.body)).not.toContain('bogus');
  });
});

describe('dry run', () => {
  it('dryRun=All answers like the real request and stores nothing, for create, update, patch and delete', async () => {
    const dryCreate = await client.post<ConfigMap>(paths.configMaps(ns), configMap('dry', { v: '1' }), { dryRun: 'All' });
    expectStatus(dryCreate, 201);
    expect(dryCreate.body).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'dry', namespace: ns }, data: { v: '1' } });
    expectFailure(await client.get(paths.configMap(ns, 'dry')), 404, 'NotFound');

    const real = await create<ConfigMap>(client, paths.configMaps(ns), configMap('dry', { v: '1' }));
    const dryPut = await client.put<ConfigMap>(paths.configMap(ns, 'dry'), { ...real, data: { v: '2' } }, { dryRun: 'All' });
    expectStatus(dryPut, 200);
    expect(dryPut.body.data).toEqual({ v: '2' });
    const dryPatch = await client.patch<ConfigMap>(paths.configMap(ns, 'dry'), MERGE_PATCH, { data: { v: '3' } }, { dryRun: 'All' });
    expectStatus(dryPatch, 200);
    expect(dryPatch.body.data).toEqual({ v: '3' });
    expectStatus(await client.delete(paths.configMap(ns, 'dry'), { dryRun: 'All' }), 200);

    const after = await client.get<ConfigMap>(paths.configMap(ns, 'dry'));
    expectStatus(after, 200);
    expect(after.body.data).toEqual({ v: '1' });
    expect(rvOf(after.body)).toBe(rvOf(real));
  });

  it('a dry-run create still validates (422) and still checks for an existing name (409)', async () => {
    expectFailure(await client.post(paths.configMaps(ns), configMap('Bad_Dry'), { dryRun: 'All' }), 422, 'Invalid');
    await create(client, paths.configMaps(ns), configMap('dry-exists'));
    expectFailure(await client.post(paths.configMaps(ns), configMap('dry-exists'), { dryRun: 'All' }), 409, 'AlreadyExists');
  });
});

describe('deletion', () => {
  it('removes an object without finalizers at once', async () => {
    await create(client, paths.configMaps(ns), configMap('short-lived'));
    expectStatus(await client.delete(paths.configMap(ns, 'short-lived')), 200);
    expectFailure(await client.get(paths.configMap(ns, 'short-lived')), 404, 'NotFound');
    expectFailure(await client.delete(paths.configMap(ns, 'short-lived')), 404, 'NotFound');
  });

  it('with a finalizer: delete sets deletionTimestamp and keeps the object; removing the finalizer removes it and a watcher sees DELETED', async () => {
    const created = await create<ConfigMap>(client, paths.configMaps(ns), {
      ...configMap('held'),
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    const watch = await client.watch<ConfigMap>(paths.configMaps(ns), { resourceVersion: rvOf(created), fieldSelector: 'metadata.name=held' });
    try {
      const deleted = await client.delete<ConfigMap>(paths.configMap(ns, 'held'));
      expectStatus(deleted, 200);
      expect(deleted.body).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      expect(deleted.body.metadata?.deletionTimestamp).toMatch(RFC3339);

      const terminating = await client.get<ConfigMap>(paths.configMap(ns, 'held'));
      expectStatus(terminating, 200);
      expect(terminating.body.metadata?.deletionTimestamp).toBe(deleted.body.metadata?.deletionTimestamp);

      // No new finalizers once deletion started.
      expectFailure(
        await client.patch(paths.configMap(ns, 'held'), MERGE_PATCH, { metadata: { finalizers: ['example.com/hold', 'example.com/late'] } }),
        422,
        'Invalid',
      );

      expectStatus(await client.patch(paths.configMap(ns, 'held'), MERGE_PATCH, { metadata: { finalizers: null } }), 200);
      expectFailure(await client.get(paths.configMap(ns, 'held')), 404, 'NotFound');

      const events = await watch.waitFor((all) => all.some((e) => e.type === 'DELETED'));
      const changes = events.filter((e) => e.type !== 'BOOKMARK');
      expect(changes[0].type).toBe('MODIFIED');
      expect(changes[0].object.metadata?.deletionTimestamp).toBeTruthy();
      expect(changes[changes.length - 1].type).toBe('DELETED');
      expect(changes.every((e) => e.type === 'MODIFIED' || e.type === 'DELETED')).toBe(true);
    } finally {
      watch.close();
    }
  });

  it('accepts delete options: propagationPolicy adds the orphan or foregroundDeletion finalizer; preconditions are checked; gracePeriodSeconds is accepted', async () => {
    for (const [policy, finalizer] of [
      ['Foreground', 'foregroundDeletion'],
      ['Orphan', 'orphan'],
    ]) {
      const name = `propagate-${policy.toLowerCase()}`;
      await create(client, paths.deployments(ns), deployment(name));
      const res = await client.delete<Deployment>(paths.deployment(ns, name), undefined, {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy: policy,
      });
      expectStatus(res, 200);
      const kept = await client.get<Deployment>(paths.deployment(ns, name));
      expectStatus(kept, 200);
      expect(kept.body.metadata?.deletionTimestamp).toBeTruthy();
      expect(kept.body.metadata?.finalizers).toContain(finalizer);
    }

    const target = await create<ConfigMap>(client, paths.configMaps(ns), configMap('preconditioned'));
    expectFailure(await client.delete(paths.configMap(ns, 'preconditioned'), undefined, { preconditions: { uid: 'not-the-uid' } }), 409, 'Conflict');
    expectFailure(await client.delete(paths.configMap(ns, 'preconditioned'), undefined, { preconditions: { resourceVersion: '1' } }), 409, 'Conflict');
    expectStatus(
      await client.delete(paths.configMap(ns, 'preconditioned'), undefined, {
        preconditions: { uid: target.metadata?.uid, resourceVersion: rvOf(target) },
        gracePeriodSeconds: 0,
      }),
      200,
    );
    expectFailure(await client.get(paths.configMap(ns, 'preconditioned')), 404, 'NotFound');
  });

  it('deletes a pod bound to a node gracefully (30 s by default, or as asked), an unbound pod at once, and gracePeriodSeconds=0 at once', async () => {
    await create(client, paths.pods(ns), pod('bound', { nodeName: 'node-a' }));
    const before = Date.now();
    expectStatus(await client.delete(paths.pod(ns, 'bound')), 200);
    const terminating = await client.get<Pod>(paths.pod(ns, 'bound'));
    expectStatus(terminating, 200);
    expect(terminating.body.metadata?.deletionGracePeriodSeconds).toBe(30);
    expect(Date.parse(terminating.body.metadata?.deletionTimestamp ?? '')).toBeGreaterThan(before + 25_000);
    expectStatus(await client.delete(paths.pod(ns, 'bound'), undefined, { gracePeriodSeconds: 0 }), 200);
    expectFailure(await client.get(paths.pod(ns, 'bound')), 404, 'NotFound');

    await create(client, paths.pods(ns), pod('bound-short', { nodeName: 'node-a' }));
    expectStatus(await client.delete(paths.pod(ns, 'bound-short'), undefined, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 5 }), 200);
    expect((await client.get<Pod>(paths.pod(ns, 'bound-short'))).body.metadata?.deletionGracePeriodSeconds).toBe(5);

    await create(client, paths.pods(ns), pod('unbound'));
    expectStatus(await client.delete(paths.pod(ns, 'unbound')), 200);
    expectFailure(await client.get(paths.pod(ns, 'unbound')), 404, 'NotFound');
  });

  it('deletecollection removes the objects a label selector picks, and only those', async () => {
    const dc = 'writes-deletecollection';
    await createNamespace(client, dc);
    await create(client, paths.configMaps(dc), configMap('dc-1', {}, { tier: 'cache' }));
    await create(client, paths.configMaps(dc), configMap('dc-2', {}, { tier: 'cache' }));
    await create(client, paths.configMaps(dc), configMap('dc-3', {}, { tier: 'web' }));
    const res = await client.delete(paths.configMaps(dc), { labelSelector: 'tier=cache' });
    expectStatus(res, 200);
    const left = await client.get<List<ConfigMap>>(paths.configMaps(dc));
    expect(left.body.items.map((i) => i.metadata?.name)).toEqual(['dc-3']);
  });
});

describe('namespaces', () => {
  it('has default, svc-system, svc-public and svc-node-lease from the first start, all Active', async () => {
    const res = await client.get<List<Namespace>>(paths.namespaces());
    expectStatus(res, 200);
    expect(res.body.kind).toBe('NamespaceList');
    const byName = new Map(res.body.items.map((n) => [n.metadata?.name, n]));
    for (const name of ['default', 'svc-system', 'svc-public', 'svc-node-lease']) {
      expect(byName.get(name)?.status?.phase).toBe('Active');
      expect(byName.get(name)?.metadata?.namespace).toBeUndefined();
    }
  });

  it('refuses creation in a namespace that does not exist (404)', async () => {
    const status = expectFailure(await client.post(paths.configMaps('no-such-namespace'), configMap('orphan')), 404, 'NotFound');
    expect(status.message).toBe('namespaces "no-such-namespace" not found');
  });

  it('marks a deleted namespace Terminating and refuses new content in it (403), while existing objects stay writable', async () => {
    const doomed = 'writes-doomed';
    const created = await createNamespace(client, doomed);
    expect(created.status?.phase).toBe('Active');
    expect(created.spec?.finalizers?.length ?? 0).toBeGreaterThan(0);
    await create(client, paths.configMaps(doomed), configMap('inside'));

    const deleted = await client.delete<Namespace>(paths.namespace(doomed));
    expectStatus(deleted, 200);
    const ns1 = await client.get<Namespace>(paths.namespace(doomed));
    expectStatus(ns1, 200);
    expect(ns1.body.status?.phase).toBe('Terminating');
    expect(ns1.body.metadata?.deletionTimestamp).toBeTruthy();

    const refused = expectFailure(await client.post(paths.configMaps(doomed), configMap('late')), 403, 'Forbidden');
    expect(refused.message).toContain(`unable to create new content in namespace ${doomed} because it is being terminated`);
    expectStatus(await client.patch(paths.configMap(doomed, 'inside'), MERGE_PATCH, { data: { still: 'writable' } }), 200);
  });

  it('refuses to delete the default and system namespaces (403)', async () => {
    for (const name of ['default', 'svc-system', 'svc-public']) {
      expectFailure(await client.delete(paths.namespace(name)), 403, 'Forbidden');
      expect((await client.get<Namespace>(paths.namespace(name))).body.status?.phase).toBe('Active');
    }
  });
});

describe('request size', () => {
  it('refuses a 4 MiB create with 413 RequestEntityTooLarge and stores nothing', async () => {
    const size = 4 * 1024 * 1024;
    const payload = Buffer.from(JSON.stringify(configMap('huge', { blob: 'x'.repeat(size) })));
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      let answered = false;
      const req = httpsRequest(
        `${server.url}${paths.configMaps(ns)}`,
        { method: 'POST', ca: server.ca, agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length } },
        (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () => {
            req.destroy();
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
          });
        },
      );
      req.on('error', (error) => (answered ? undefined : reject(error)));
      // The first 64 KiB go out at once; a server that refuses on the declared length answers before
      // the rest, which would otherwise race its closing of the connection. One that reads on gets it all.
      let offset = 0;
      const pump = () => {
        while (!answered && offset < payload.length) {
          const chunk = payload.subarray(offset, offset + 64 * 1024);
          offset += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered) req.end();
      };
      req.write(payload.subarray(0, 64 * 1024));
      offset = 64 * 1024;
      setTimeout(pump, 1_000);
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    expectFailure(await client.get(paths.configMap(ns, 'huge')), 404, 'NotFound');
  });
});

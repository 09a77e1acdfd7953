import { configMapDefinition, deploymentDefinition, nodeDefinition, type ConfigMap, type Deployment } from '@svc/api';
import { isBadRequest, isStatus } from '@svc/machinery';
import { Client } from './client';
import { json, RecordingClock, ScriptedServer, status } from './testing/scripted-server';

describe('ResourceClient requests', () => {
  let server: ScriptedServer;
  let client: Client;

  beforeEach(async () => {
    server = new ScriptedServer();
    client = new Client({ server: await server.listen(), qps: -1 }, { clock: new RecordingClock() });
    server.always((req, res, body) => json(200, body ? JSON.parse(body) : { kind: 'ConfigMap', metadata: {} })(req, res, body));
  });

  afterEach(async () => {
    client.close();
    await server.close();
  });

  const last = () => server.requests[server.requests.length - 1];

  it('creates in the namespace of the params, the object or the scoped client, filling apiVersion and kind', async () => {
    await client.configMaps.create({ metadata: { name: 'a', namespace: 'obj-ns' } }, { dryRun: true, fieldManager: 'me', fieldValidation: 'Strict' });
    expect(last()).toMatchObject({ method: 'POST', url: '/api/v1/namespaces/obj-ns/configmaps?dryRun=All&fieldManager=me&fieldValidation=Strict' });
    expect(JSON.parse(last().body)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'obj-ns' } });
    await client.deployments.inNamespace('scoped').create({ metadata: { name: 'd' } } as Deployment);
    expect(last().url).toBe('/apis/apps/v1/namespaces/scoped/deployments');
    expect(JSON.parse(last().body)).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
    await client.nodes.create({ metadata: { name: 'n1' } });
    expect(last().url).toBe('/api/v1/nodes');
  });

  it('refuses a namespaced call without a namespace, and a write without a name, before any request', async () => {
    const before = server.requests.length;
    expect(isBadRequest(await client.configMaps.get('x').catch((e: unknown) => e))).toBe(true);
    expect(isBadRequest(await client.configMaps.create({ metadata: { name: 'x' } }).catch((e: unknown) => e))).toBe(true);
    expect(isBadRequest(await client.configMaps.update({ metadata: { namespace: 'd' } }).catch((e: unknown) => e))).toBe(true);
    expect(
      isBadRequest(
        await client
          .resource(nodeDefinition)
          .getScale('n1')
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
    expect(server.requests.length).toBe(before);
  });

  it('updates and updates status with PUT to the object and its status subresource', async () => {
    const cm: ConfigMap = { metadata: { name: 'a', namespace: 'd', resourceVersion: '7' }, data: { k: 'v' } };
    await client.configMaps.update(cm);
    expect(last()).toMatchObject({ method: 'PUT', url: '/api/v1/namespaces/d/configmaps/a' });
    expect(JSON.parse(last().body).metadata.resourceVersion).toBe('7');
    await client.deployments.updateStatus({ metadata: { name: 'w', namespace: 'd' }, status: { replicas: 1 } } as Deployment);
    expect(last()).toMatchObject({ method: 'PUT', url: '/apis/apps/v1/namespaces/d/deployments/w/status' });
  });

  it('sends each patch type with its content type, apply with fieldManager and force', async () => {
    const cms = client.configMaps.inNamespace('d');
    await cms.patch('a', { data: { k: null } });
    expect(last().headers['content-type']).toBe('application/merge-patch+json');
    expect(last().body).toBe('{"data":{"k":null}}');
    await cms.patch('a', [{ op: 'replace', path: '/data/k', value: 'v' }], 'json');
    expect(last().headers['content-type']).toBe('application/json-patch+json');
    await cms.patch('a', { data: { k: 'v' } }, 'strategic');
    expect(last().headers['content-type']).toBe('application/strategic-merge-patch+json');
    await cms.apply({ metadata: { name: 'a' }, data: { k: 'v' } }, { fieldManager: 'ctl', force: true });
    expect(last()).toMatchObject({ method: 'PATCH', url: '/api/v1/namespaces/d/configmaps/a?fieldManager=ctl&force=true' });
    expect(last().headers['content-type']).toBe('application/apply-patch+yaml');
    expect(JSON.parse(last().body)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
    await client.deployments.patchStatus('w', { status: { replicas: 2 } }, 'merge', { namespace: 'd' });
    expect(last().url).toBe('/apis/apps/v1/namespaces/d/deployments/w/status');
  });

  it('deletes with options in the query and a DeleteOptions body; the answer is the object or a Status', async () => {
    server.script(json(200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }));
    const gone = await client.configMaps.delete('a', {
      namespace: 'd',
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u1' },
      dryRun: true,
    });
    expect(isStatus(gone)).toBe(true);
    expect(last()).toMatchObject({ method: 'DELETE', url: '/api/v1/namespaces/d/configmaps/a?dryRun=All&gracePeriodSeconds=0&propagationPolicy=Foreground' });
    expect(JSON.parse(last().body)).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1' },
      dryRun: ['All'],
    });
    server.script(json(200, { kind: 'ConfigMap', metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z' } }));
    const pending = await client.configMaps.delete('a', { namespace: 'd' });
    expect(isStatus(pending)).toBe(false);
    expect(last().body).toBe('');
    await client.configMaps.deleteCollection({ namespace: 'd', labelSelector: 'app=x' });
    expect(last()).toMatchObject({ method: 'DELETE', url: '/api/v1/namespaces/d/configmaps?labelSelector=app%3Dx' });
  });

  it('lists with every parameter, across namespaces without one', async () => {
    server.script(json(200, { kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items: null }));
    const list = await client.configMaps.list({
      labelSelector: 'a=b',
      fieldSelector: 'metadata.name=x',
      limit: 5,
      resourceVersion: '0',
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds: 3,
    });
    expect(list.items).toEqual([]);
    expect(last().url).toBe(
      '/api/v1/configmaps?labelSelector=a%3Db&fieldSelector=metadata.name%3Dx&limit=5&resourceVersion=0&resourceVersionMatch=NotOlderThan&timeoutSeconds=3',
    );
  });

  it('listAll follows continue tokens, dropping resourceVersion on continuations', async () => {
    const page = (names: string[], cont: string) =>
      json(200, {
        kind: 'ConfigMapList',
        metadata: { resourceVersion: '10', continue: cont, remainingItemCount: 1 },
        items: names.map((name) => ({ metadata: { name } })),
      });
    server.script(page(['a', 'b'], 't1'), page(['c', 'd'], 't2'), page(['e'], ''));
    const all = await client.configMaps.listAll({ namespace: 'd', limit: 2, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' });
    expect(all.items.map((i) => i.metadata?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(all.metadata).toEqual({ resourceVersion: '10' });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v1/namespaces/d/configmaps?limit=2&resourceVersion=0&resourceVersionMatch=NotOlderThan',
      '/api/v1/namespaces/d/configmaps?limit=2&continue=t1',
      '/api/v1/namespaces/d/configmaps?limit=2&continue=t2',
    ]);
  });

  it('listAll reads the whole list unpaged when a continue token expired', async () => {
    server.script(
      json(200, { metadata: { resourceVersion: '10', continue: 't1' }, items: [{ metadata: { name: 'a' } }] }),
      json(410, status(410, 'Expired', 'The provided continue parameter is too old')),
      json(200, { metadata: { resourceVersion: '12' }, items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] }),
    );
    const all = await client.configMaps.listAll({ limit: 1 });
    expect(all.items.map((i) => i.metadata?.name)).toEqual(['a', 'b']);
    expect(all.metadata.resourceVersion).toBe('12');
    expect(last().url).toBe('/api/v1/configmaps');
  });

  it('reads and writes the scale subresource', async () => {
    const deployments = client.resource<Deployment>(deploymentDefinition).inNamespace('d');
    await deployments.getScale('w');
    expect(last()).toMatchObject({ method: 'GET', url: '/apis/apps/v1/namespaces/d/deployments/w/scale' });
    await deployments.updateScale('w', { spec: { replicas: 4 } });
    expect(last()).toMatchObject({ method: 'PUT', url: '/apis/apps/v1/namespaces/d/deployments/w/scale' });
    expect(JSON.parse(last().body)).toEqual({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { replicas: 4 } });
  });

  it('addresses custom resources through dynamic and forKind once the kind is in the scheme', async () => {
    const widgets = client.dynamic({ group: 'example.com', version: 'v1alpha1', resource: 'widgets', namespaced: false });
    await widgets.create({ apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'w' } });
    expect(last().url).toBe('/apis/example.com/v1alpha1/widgets');
    client.scheme.register({
      ...configMapDefinition,
      group: 'example.com',
      version: 'v1',
      kind: 'Gadget',
      resource: 'gadgets',
      listKind: 'GadgetList',
      singular: 'gadget',
    });
    await client.forKind('example.com/v1', 'Gadget').get('g', { namespace: 'd' });
    expect(last().url).toBe('/apis/example.com/v1/namespaces/d/gadgets/g');
  });
});

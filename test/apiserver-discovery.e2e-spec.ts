import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { httpsFetch, type HttpsResponse } from './support/https-client';
import { runKubectl } from './support/kubectl-run';

// Discovery, OpenAPI v3 and CustomResourceDefinitions of the real svc-apiserver, read the way
// client-go and kubectl read them.

const CLIENT_GO_DISCOVERY_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const WIDGET_CRD = `apiVersion: apiextensions.svc.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
                description: How big the widget is.
              colour:
                type: string
          status:
            type: object
            properties:
              replicas:
                type: integer
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.size
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
`;

const WIDGET = (name: string, size: number) => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
spec:
  size: ${size}
  colour: blue
`;

const DEPLOYMENT = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ${image}
`;

// Documents are read loosely here; their exact shapes are asserted where it matters.
type Json = Record<string, any>;

describe('discovery, OpenAPI and CustomResourceDefinitions of svc-apiserver', () => {
  let server: ApiServerProcess;
  let dataDir: string;

  const get = (path: string, headers: Record<string, string> = {}): Promise<HttpsResponse> => httpsFetch(`${server.url}${path}`, { ca: server.ca, headers });
  const getJson = async (path: string, headers: Record<string, string> = {}): Promise<Json> => {
    const res = await get(path, headers);
    expect(res.status).toBe(200);
    return JSON.parse(res.body) as Json;
  };
  const kubectl = async (...args: string[]): Promise<{ stdout: string; stderr: string }> => {
    const res = await runKubectl(args, server.kubectlEnv);
    if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
    return res;
  };
  const manifest = async (name: string, text: string): Promise<string> => {
    const file = join(server.dir, name);
    await writeFile(file, text);
    return file;
  };

  beforeAll(async () => {
    // A data directory of our own, so that a second server can start on the same store after the first.
    dataDir = await mkdtemp(join(tmpdir(), 'svc-discovery-e2e-data-'));
    server = await startApiServerProcess({ args: [`--data-dir=${dataDir}`] });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('discovery', () => {
    it('answers /api and /apis in the legacy form with plain JSON', async () => {
      const api = await get('/api', { Accept: 'application/json' });
      expect(api.status).toBe(200);
      expect(api.headers['content-type']).toBe('application/json');
      expect(JSON.parse(api.body)).toEqual({
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${server.port}` }],
      });
      const apis = await getJson('/apis');
      expect(apis.kind).toBe('APIGroupList');
      const groups = new Map((apis.groups as Json[]).map((g) => [g.name, g]));
      for (const name of ['apps', 'coordination.svc.io', 'apiextensions.svc.io']) {
        expect(groups.get(name)).toEqual({
          name,
          versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
          preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
        });
      }
      expect(await getJson('/apis/apps')).toEqual({
        kind: 'APIGroup',
        apiVersion: 'v1',
        name: 'apps',
        versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      });
    });

    it('answers client-go with the aggregated form and the content type it checks', async () => {
      for (const root of ['/api', '/apis']) {
        const res = await get(root, { Accept: CLIENT_GO_DISCOVERY_ACCEPT });
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
        expect(JSON.parse(res.body)).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
      }
      const core = JSON.parse((await get('/api', { Accept: CLIENT_GO_DISCOVERY_ACCEPT })).body) as Json;
      const pods = (core.items[0].versions[0].resources as Json[]).find((r) => r.resource === 'pods');
      expect(pods).toMatchObject({ responseKind: { group: '', version: 'v1', kind: 'Pod' }, scope: 'Namespaced', shortNames: ['po'] });
      const beta = await get('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' });
      expect(beta.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    });

    it('lists resources with verbs, short names and subresources', async () => {
      const core = await getJson('/api/v1');
      expect(core).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
      const byName = new Map((core.resources as Json[]).map((r) => [r.name, r]));
      expect(byName.get('pods')).toMatchObject({
        singularName: 'pod',
        namespaced: true,
        kind: 'Pod',
        shortNames: ['po'],
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      });
      expect(byName.get('pods/status')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
      expect(byName.get('namespaces/finalize')).toMatchObject({ kind: 'Namespace', verbs: ['update'] });
      const apps = await getJson('/apis/apps/v1');
      expect((apps.resources as Json[]).find((r) => r.name === 'deployments/scale')).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    });

    it('answers 404 Status for groups and versions it does not serve', async () => {
      for (const path of ['/apis/nope.example.com', '/apis/apps/v9', '/api/v9']) {
        const res = await get(path);
        expect(res.status).toBe(404);
        expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
      }
    });

    it('lets clients revalidate with the entity tag', async () => {
      const first = await get('/apis/apps/v1');
      const again = await get('/apis/apps/v1', { 'If-None-Match': String(first.headers.etag) });
      expect(again.status).toBe(304);
    });

    it('shows kubectl our resources with their short names', async () => {
      const { stdout } = await kubectl('api-resources');
      expect(stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
      expect(stdout).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
      // Short names go with Kubernetes' group name only, so `kubectl get crd` means apiextensions.k8s.io.
      expect(stdout).toMatch(/^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition$/m);
      expect(stdout).toMatch(/^customresourcedefinitions\s+apiextensions\.svc\.io\/v1\s+false\s+CustomResourceDefinition$/m);
      const missing = await runKubectl(['get', 'crd', 'nothing.example.io'], server.kubectlEnv);
      expect(missing.stderr).toContain('customresourcedefinitions.apiextensions.k8s.io "nothing.example.io" not found');
      expect(stdout).toMatch(/^leases\s+coordination\.svc\.io\/v1\s+true\s+Lease$/m);
    });
  });

  describe('OpenAPI v3', () => {
    it('indexes every group version with a content hash, and caches hashed documents for good', async () => {
      const index = await getJson('/openapi/v3');
      const apps = index.paths['apis/apps/v1'].serverRelativeURL as string;
      expect(apps).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
      expect(Object.keys(index.paths)).toEqual(
        expect.arrayContaining(['api/v1', 'apis/apps/v1', 'apis/coordination.svc.io/v1', 'apis/apiextensions.svc.io/v1']),
      );
      const hashed = await get(apps);
      expect(hashed.status).toBe(200);
      expect(hashed.headers['cache-control']).toMatch(/public, immutable/);
      const stale = await get('/openapi/v3/apis/apps/v1?hash=0000');
      expect(stale.status).toBe(301);
      expect(stale.headers.location).toBe(apps);
      expect((await get('/openapi/v3/apis/apps/v1', { Accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' })).status).toBe(406);
      expect((await get('/openapi/v3/apis/nope.example.com/v1')).status).toBe(404);
    });

    it('documents every kind with its GVK, and fieldValidation on every PATCH', async () => {
      const doc = await getJson('/openapi/v3/apis/apps/v1');
      expect(doc.components.schemas['io.svc.api.apps.v1.Deployment']['x-kubernetes-group-version-kind']).toEqual([
        { group: 'apps', version: 'v1', kind: 'Deployment' },
      ]);
      const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch as Json;
      expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
      expect((patch.parameters as Json[]).map((p) => p.name)).toContain('fieldValidation');
      expect(Object.keys(patch.requestBody.content)).toContain('application/strategic-merge-patch+json');
    });

    it('lets kubectl explain a field path', async () => {
      const { stdout } = await kubectl('explain', 'deployment.spec.strategy');
      expect(stdout).toMatch(/KIND:\s+Deployment/);
      expect(stdout).toMatch(/VERSION:\s+v1/);
      expect(stdout).toMatch(/rollingUpdate\s+<RollingUpdateDeployment>/);
      expect(stdout).toMatch(/enum: Recreate, RollingUpdate/);
    });

    it('lets kubectl create (strict validation) and apply built-in kinds without OpenAPI v2', async () => {
      await kubectl('create', '-f', await manifest('namespace.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: discovery-e2e\n'));
      const file = await manifest('deployment.yaml', DEPLOYMENT('nginx:1'));
      const created = await kubectl('create', '-n', 'discovery-e2e', '-f', file, '-v=6');
      expect(created.stdout).toContain('deployment.apps/web created');
      expect(created.stderr).toContain('fieldValidation=Strict');
      await writeFile(file, DEPLOYMENT('nginx:2'));
      const applied = await kubectl('apply', '-n', 'discovery-e2e', '-f', file, '-v=8');
      expect(applied.stdout).toContain('deployment.apps/web configured');
      // The patch metadata came from our OpenAPI v3 document: kubectl sent a strategic merge patch.
      expect(applied.stderr).toContain('Content-Type: application/strategic-merge-patch+json');
      for (const out of [created.stderr, applied.stderr]) expect(out).not.toContain('/openapi/v2');
      const { stdout } = await kubectl('get', '-n', 'discovery-e2e', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}');
      expect(stdout).toBe('nginx:2');

      const unknown = await manifest('bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\nbogus: 1\n');
      const refused = await runKubectl(['create', '-n', 'discovery-e2e', '-f', unknown], server.kubectlEnv);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/unknown field "bogus"/);
    });
  });

  describe('CustomResourceDefinitions', () => {
    it('become Established, are served, listed, explained and scaled, and leave with their objects', async () => {
      const crd = await manifest('crd.yaml', WIDGET_CRD);
      await kubectl('create', '-f', crd);
      await kubectl('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=10s');
      const status = JSON.parse((await kubectl('get', 'crd', 'widgets.example.com', '-o', 'json')).stdout) as Json;
      expect(status.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.svc.io']);
      expect(status.status.acceptedNames).toEqual({ plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' });
      expect(status.status.storedVersions).toEqual(['v1']);
      expect((status.status.conditions as Json[]).map((c) => [c.type, c.status, c.reason])).toEqual([
        ['NamesAccepted', 'True', 'NoConflicts'],
        ['Established', 'True', 'InitialNamesAccepted'],
      ]);

      expect((await getJson('/apis')).groups.map((g: Json) => g.name)).toContain('example.com');
      expect((await getJson('/openapi/v3')).paths['apis/example.com/v1']).toBeDefined();

      await kubectl('create', '-n', 'discovery-e2e', '-f', await manifest('w1.yaml', WIDGET('w1', 3)));
      await kubectl('apply', '-n', 'discovery-e2e', '-f', await manifest('w2.yaml', WIDGET('w2', 5)));
      const listed = await kubectl('get', '-n', 'discovery-e2e', 'widgets');
      expect(listed.stdout).toMatch(/^NAME\s+SIZE$/m);
      expect(listed.stdout).toMatch(/^w1\s+3$/m);
      expect(listed.stdout).toMatch(/^w2\s+5$/m);
      expect((await kubectl('get', '-n', 'discovery-e2e', 'wd', 'w1', '-o', 'name')).stdout.trim()).toBe('widget.example.com/w1');
      await kubectl('scale', '-n', 'discovery-e2e', 'widget', 'w1', '--replicas=7');
      expect((await kubectl('get', '-n', 'discovery-e2e', 'widget', 'w1', '-o', 'jsonpath={.spec.size}')).stdout).toBe('7');
      const explained = await kubectl('explain', 'widget.spec.size');
      expect(explained.stdout).toContain('How big the widget is.');
      const resources = await kubectl('api-resources', '--api-group=example.com');
      expect(resources.stdout).toMatch(/^widgets\s+wd\s+example\.com\/v1\s+true\s+Widget$/m);

      await kubectl('delete', 'crd', 'widgets.example.com');
      await eventually(async () => {
        const res = await get('/apis/apiextensions.svc.io/v1/customresourcedefinitions/widgets.example.com');
        if (res.status !== 404) throw new Error(`definition still there: ${res.status}`);
      });
      expect((await getJson('/apis')).groups.map((g: Json) => g.name)).not.toContain('example.com');
      expect((await getJson('/openapi/v3')).paths['apis/example.com/v1']).toBeUndefined();
      expect((await get('/apis/example.com/v1/namespaces/discovery-e2e/widgets')).status).toBe(404);
    });

    it('refuses names another definition of the group holds', async () => {
      await kubectl('create', '-f', await manifest('crd.yaml', WIDGET_CRD));
      await kubectl('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=10s');
      const rival = WIDGET_CRD.replace('name: widgets.example.com', 'name: gadgets.example.com')
        .replace('plural: widgets', 'plural: gadgets')
        .replace('singular: widget', 'singular: gadget')
        .replace('shortNames: [wd]', 'shortNames: [gd]');
      await kubectl('create', '-f', await manifest('rival.yaml', rival));
      await kubectl('wait', '--for=condition=NamesAccepted=false', 'crd/gadgets.example.com', '--timeout=10s');
      const got = JSON.parse((await kubectl('get', 'crd', 'gadgets.example.com', '-o', 'json')).stdout) as Json;
      expect((got.status.conditions as Json[]).find((c) => c.type === 'NamesAccepted')).toMatchObject({
        status: 'False',
        reason: 'ListKindConflict',
        message: '"WidgetList" is already in use',
      });
      expect((got.status.conditions as Json[]).find((c) => c.type === 'Established')).toMatchObject({ status: 'False', reason: 'NotAccepted' });
      expect((await get('/apis/example.com/v1/namespaces/discovery-e2e/gadgets')).status).toBe(404);
    });

    it('refuses a definition whose schema is not structural', async () => {
      const bad = WIDGET_CRD.replace('name: widgets.example.com', 'name: things.example.com')
        .replace('plural: widgets', 'plural: things')
        .replace('singular: widget', 'singular: thing')
        .replace('kind: Widget', 'kind: Thing')
        .replace('shortNames: [wd]', 'shortNames: [th]')
        .replace('              colour:\n                type: string\n', '              colour: {}\n');
      const res = await runKubectl(['create', '-f', await manifest('bad-crd.yaml', bad)], server.kubectlEnv);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain('spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[colour].type: Required value');
    });

    it('are served by a server started later on the same store before it reports ready, with --runtime-config applied', async () => {
      await server.stop();
      server = await startApiServerProcess({ args: [`--data-dir=${dataDir}`, '--runtime-config=coordination.svc.io/v1=false'] });
      // Ready means every stored definition is served already.
      const readyz = await get('/readyz?verbose');
      expect(readyz.body).toContain('[+]poststarthook/crd-informer-synced ok');
      expect((await getJson('/apis/example.com/v1')).resources.map((r: Json) => r.name)).toEqual(['widgets', 'widgets/scale', 'widgets/status']);
      expect((await kubectl('get', '-n', 'discovery-e2e', 'widgets', '-o', 'name')).stdout.trim()).toBe('');
      const groups = (await getJson('/apis')).groups.map((g: Json) => g.name);
      expect(groups).not.toContain('coordination.svc.io');
      expect((await get('/apis/coordination.svc.io/v1')).status).toBe(404);
      expect((await getJson('/openapi/v3')).paths['apis/coordination.svc.io/v1']).toBeUndefined();
    });
  });
});

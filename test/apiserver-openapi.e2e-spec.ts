import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { type HttpsResponse, httpsFetch } from './support/https-client';
import { type KubectlResult, runKubectl } from './support/kubectl-run';

// What kubectl reads from /openapi/v3, /openapi/v2 and discovery, on the real svc-apiserver process.

// Documents are read loosely here; their exact shapes are asserted in the unit specs.
type Json = Record<string, any>;

let server: ApiServerProcess;

const get = (path: string, headers: Record<string, string> = {}): Promise<HttpsResponse> => httpsFetch(`${server.url}${path}`, { ca: server.ca, headers });
const getJson = async (path: string, headers: Record<string, string> = {}): Promise<Json> => {
  const res = await get(path, headers);
  expect(res.status).toBe(200);
  return JSON.parse(res.body) as Json;
};
const run = (...args: string[]): Promise<KubectlResult> => runKubectl(args, server.kubectlEnv, 60_000);
async function kubectl(...args: string[]): Promise<string> {
  const res = await run(...args);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}
async function manifest(name: string, text: string): Promise<string> {
  const file = join(server.dir, name);
  await writeFile(file, text);
  return file;
}

beforeAll(async () => {
  server = await startApiServerProcess();
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('kubectl explain', () => {
  it('explains quantities and int-or-strings (no type arrays in /openapi/v3)', async () => {
    const resources = await kubectl('explain', 'pod.spec.containers.resources');
    expect(resources).toContain('FIELDS:');
    expect(resources).toMatch(/limits\s+<map\[string\]Quantity>/);
    const recursive = await kubectl('explain', 'deployment', '--recursive');
    expect(recursive).toMatch(/maxSurge\s+<IntOrString>/);
    expect(recursive).toMatch(/requests\s+<map\[string\]Quantity>/);
  });

  it('describes the fields of the built-in kinds in its own words, never <no description>', async () => {
    for (const path of [
      'pod.spec',
      'pod.spec.containers',
      'pod.metadata',
      'deployment.spec',
      'deployment.spec.strategy',
      'deployment.status',
      'tokenreview.spec',
    ]) {
      const out = await kubectl('explain', path);
      expect(out).not.toContain('<no description>');
    }
    expect(await kubectl('explain', 'pod.spec.containers.image')).toContain('The image to run');
  });

  it('explains nested structs, list items and map values of the other kinds from both documents, with the kind described too', async () => {
    // kubectl wraps descriptions at its own width: compare the words, not the lines.
    const explain = async (...args: string[]) => (await kubectl('explain', ...args)).replace(/\s+/g, ' ');
    const cases: Array<[path: string, text: string]> = [
      // A struct inside a struct (a component referenced from PodSecurityContext).
      ['pod.spec.securityContext.seccompProfile.type', 'Localhost (a profile on the node, named by localhostProfile)'],
      // A field of a list item, declared inline (RBAC's PolicyRule), and one three lists deep.
      ['clusterrole.rules.verbs', 'The verbs allowed: get, list, watch'],
      ['validatingwebhookconfiguration.webhooks.clientConfig.service.port', 'The service port to call; 443 by default.'],
      // A map, whose values are Quantities: the field's words, then the value type's.
      ['node.status.allocatable', "after the system's and the node agent's reservations"],
      // A struct inline in a list item of a status.
      ['pod.status.containerStatuses.state.terminated.exitCode', 'Its exit status.'],
      ['customresourcedefinition.spec.versions.subresources.scale.labelSelectorPath', 'which autoscalers need'],
    ];
    for (const [path, text] of cases) {
      const v3 = await explain(path);
      expect(v3).toContain(text);
      expect(v3).not.toContain('<no description>');
    }
    // The Swagger 2.0 document carries the same words.
    expect(await explain('pod.status.containerStatuses.state.terminated', '--output=plaintext-openapiv2')).toContain(
      'exitCode <integer> -required- Its exit status.',
    );
    expect(await explain('node.status.allocatable', '--output=plaintext-openapiv2')).toContain("after the system's and the node agent's reservations");
    // A kind's own description heads its recursive listing.
    expect(await explain('clusterrolebinding', '--recursive')).toContain('Grants the permissions of a ClusterRole to users, groups and service accounts');
    expect(await explain('service', '--recursive')).toContain('the service proxy of each node (svc-proxy) routes cluster IPs');
  });
});

describe('/openapi/v3 as Kubernetes serves it', () => {
  it('indexes every group version of discovery, the *.svc.io names and the review groups too', async () => {
    const index = await getJson('/openapi/v3');
    const apis = await getJson('/apis');
    const expected = ['api/v1', ...(apis.groups as Json[]).flatMap((g) => (g.versions as Json[]).map((v) => `apis/${v.groupVersion}`))];
    expect(Object.keys(index.paths).sort()).toEqual(expected.sort());
    expect(expected).toEqual(expect.arrayContaining(['apis/rbac.authorization.svc.io/v1', 'apis/authentication.k8s.io/v1', 'apis/authorization.k8s.io/v1']));
    for (const key of expected) {
      const url = index.paths[key].serverRelativeURL as string;
      expect(url).toMatch(new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`));
    }
    const hashed = await get(index.paths['apis/authentication.k8s.io/v1'].serverRelativeURL);
    expect(hashed.status).toBe(200);
    expect(hashed.headers['cache-control']).toBe('public, immutable');
    expect(Date.parse(String(hashed.headers.expires)) - Date.now()).toBeGreaterThan(360 * 24 * 3600 * 1000);
    expect(hashed.headers.etag).toBe(`"${new URL(index.paths['apis/authentication.k8s.io/v1'].serverRelativeURL, server.url).searchParams.get('hash')}"`);
    const doc = JSON.parse(hashed.body) as Json;
    expect(Object.keys(doc.paths)).toContain('/apis/authentication.k8s.io/v1/tokenreviews');
    expect(Object.keys(doc.paths['/apis/authentication.k8s.io/v1/tokenreviews'])).toEqual(['post', 'parameters']);
    const plain = await get('/openapi/v3/apis/authentication.k8s.io/v1');
    expect(plain.headers['cache-control']).toBe('no-cache, private');
    expect((await get('/openapi/v3/apis/nope.example.com/v1')).status).toBe(404);
  });

  it("lets kubectl apply a kind the server does not serve fail with Kubernetes' no matches for kind", async () => {
    const file = await manifest('unknown.yaml', 'apiVersion: foo.example/v1\nkind: X\nmetadata:\n  name: a\n');
    const res = await run('apply', '-f', file);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('no matches for kind "X" in version "foo.example/v1"');
    expect(res.stderr).not.toContain('failed to download openapi');
  });
});

describe('/openapi/v2', () => {
  it('is served as Swagger 2.0 JSON and as the protobuf client-go asks for, 406 otherwise', async () => {
    const json = await get('/openapi/v2', { Accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toBe('application/json');
    expect(json.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    const swagger = JSON.parse(json.body) as Json;
    expect(swagger.swagger).toBe('2.0');
    expect(swagger.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    const pb = await get('/openapi/v2', { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(pb.status).toBe(200);
    // Kubernetes answers with the spelling Go's mime parser reads (no `@`).
    expect(pb.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(pb.headers.vary).toContain('Accept');
    const again = await get('/openapi/v2', { Accept: 'application/json', 'If-None-Match': String(json.headers.etag) });
    expect(again.status).toBe(304);
    expect((await get('/openapi/v2', { Accept: 'text/html' })).status).toBe(406);
  });

  it('reads as kubectl reads it: explain in the v2 form', async () => {
    const out = await kubectl('explain', 'deployment.spec.strategy', '--output=plaintext-openapiv2');
    expect(out).toContain('rollingUpdate');
  });
});

describe('discovery order and the review APIs', () => {
  it("names Kubernetes' groups in kubectl's messages", async () => {
    const res = await run('get', 'clusterrole', 'x');
    expect(res.stderr).toContain('clusterroles.rbac.authorization.k8s.io "x" not found');
    const crd = await manifest(
      'crd.yaml',
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
`,
    );
    await kubectl('apply', '-f', crd);
    expect(await kubectl('delete', '-f', crd)).toContain('customresourcedefinition.apiextensions.k8s.io "gadgets.example.com" deleted');
    const groups = ((await getJson('/apis')).groups as Json[]).map((g) => g.name as string);
    expect(groups.indexOf('rbac.authorization.k8s.io')).toBeLessThan(groups.indexOf('rbac.authorization.svc.io'));
    expect(groups.slice(0, 6)).toEqual(['apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling']);
    const aggregated = await getJson('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    expect((aggregated.items as Json[]).map((i) => i.metadata.name)).toEqual(groups);
  });

  it('lists the reviews with the create verb alone, and kubectl creates them', async () => {
    const list = await getJson('/apis/authorization.k8s.io/v1');
    expect(list.resources).toEqual([
      { name: 'localsubjectaccessreviews', singularName: 'localsubjectaccessreview', namespaced: true, kind: 'LocalSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
      { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
    ]);
    const authn = (await getJson('/apis/authentication.k8s.io/v1')).resources as Json[];
    expect(authn.map((r) => [r.name, r.verbs])).toEqual([
      ['selfsubjectreviews', ['create']],
      ['tokenreviews', ['create']],
    ]);
    const aggregated = await getJson('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const authz = (aggregated.items as Json[]).find((i) => i.metadata.name === 'authorization.k8s.io')!;
    expect(authz.versions[0].resources.map((r: Json) => [r.resource, r.scope, r.verbs])).toEqual([
      ['localsubjectaccessreviews', 'Namespaced', ['create']],
      ['selfsubjectaccessreviews', 'Cluster', ['create']],
      ['selfsubjectrulesreviews', 'Cluster', ['create']],
      ['subjectaccessreviews', 'Cluster', ['create']],
    ]);
    const token = await manifest(
      'tokenreview.json',
      JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'not-a-token' } }),
    );
    const review = JSON.parse(await kubectl('create', '-f', token, '-o', 'json')) as Json;
    expect(review.kind).toBe('TokenReview');
    expect(review.status.authenticated ?? false).toBe(false);
    const sar = await manifest(
      'sar.json',
      JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
      }),
    );
    expect(JSON.parse(await kubectl('create', '-f', sar, '-o', 'json')).status).toHaveProperty('allowed');
    const ssar = await manifest(
      'ssar.yaml',
      'apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  resourceAttributes:\n    verb: list\n    resource: pods\n',
    );
    expect(JSON.parse(await kubectl('create', '-f', ssar, '-o', 'json')).status.allowed).toBe(true);
    const whoami = await kubectl('auth', 'whoami');
    expect(whoami).toContain('Username');
    expect(await kubectl('explain', 'tokenreview.spec')).toContain('token');
  });
});

describe('componentstatuses', () => {
  it('shows the scheduler, the controller manager and the store as kubectl get cs does, with the deprecation warning', async () => {
    const res = await run('get', 'cs');
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('Warning: v1 ComponentStatus is deprecated in v1.19+');
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+MESSAGE\s+ERROR$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(['controller-manager', 'etcd-0', 'scheduler']);
    expect(lines.find((l) => l.startsWith('etcd-0'))).toMatch(/^etcd-0\s+Healthy\s+ok/);
    // Nothing listens on the scheduler's default port here: Kubernetes' answer for a component it cannot reach.
    const scheduler = JSON.parse(await kubectl('get', 'componentstatus', 'scheduler', '-o', 'json')) as Json;
    expect(scheduler).toMatchObject({ kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: 'scheduler' } });
    expect(scheduler.conditions[0].type).toBe('Healthy');
    if (scheduler.conditions[0].status === 'False') {
      expect(scheduler.conditions[0].error).toBe('Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused');
    }
    const missing = await run('get', 'cs', 'nope');
    expect(missing.stderr).toContain('componentstatuses "nope" not found');
    const core = (await getJson('/api/v1')).resources as Json[];
    expect(core.find((r) => r.name === 'componentstatuses')).toEqual({
      name: 'componentstatuses',
      singularName: 'componentstatus',
      namespaced: false,
      kind: 'ComponentStatus',
      verbs: ['get', 'list'],
      shortNames: ['cs'],
    });
    const post = await httpsFetch(`${server.url}/api/v1/componentstatuses`, {
      ca: server.ca,
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(post.status).toBe(405);
  });
});

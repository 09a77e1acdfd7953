import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Lease, ManagedFieldsEntry, Role } from '@svc/api';
import { ApiClient } from './support/api-client';
import { MERGE_PATCH, createNamespace, eventually, expectStatus } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { kubectl as kubectlOrFail, runKubectl } from './support/kubectl-run';

// The tools users already have name the API groups `*.k8s.io`; the server serves each of its
// `*.svc.io` groups under that name too, on the same storage. kubectl and raw HTTP, against the real
// svc-apiserver process.

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'compat-groups';

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
  return (await kubectlOrFail(args, server.kubectlEnv)).stdout;
}

async function manifest(name: string, text: string): Promise<string> {
  const file = join(server.dir, name);
  await writeFile(file, text);
  return file;
}

const svcLeases = `/apis/coordination.svc.io/v1/namespaces/${ns}/leases`;
const k8sLeases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;

describe('one group under two names', () => {
  it('reads, patches and deletes through either name what was created through the other, each answer in the apiVersion asked for', async () => {
    const created = await client.post<Lease>(k8sLeases, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'twin' },
      spec: { holderIdentity: 'a' },
    });
    expectStatus(created, 201);
    expect(created.body.apiVersion).toBe('coordination.k8s.io/v1');

    const viaSpec = await client.get<Lease>(`${svcLeases}/twin`);
    expect(viaSpec.body).toMatchObject({ apiVersion: 'coordination.svc.io/v1', kind: 'Lease', spec: { holderIdentity: 'a' } });
    expect(viaSpec.body.metadata?.uid).toBe(created.body.metadata?.uid);

    // A body naming either group is accepted by either endpoint.
    const patched = await client.patch<Lease>(`${svcLeases}/twin`, MERGE_PATCH, { apiVersion: 'coordination.k8s.io/v1', spec: { holderIdentity: 'b' } });
    expectStatus(patched, 200);
    expect(patched.body.apiVersion).toBe('coordination.svc.io/v1');
    const replaced = await client.put<Lease>(`${k8sLeases}/twin`, { ...patched.body, spec: { holderIdentity: 'c' } });
    expectStatus(replaced, 200);
    expect(replaced.body.apiVersion).toBe('coordination.k8s.io/v1');

    const list = await client.get<{ apiVersion: string; items: Lease[] }>(k8sLeases);
    expect(list.body.apiVersion).toBe('coordination.k8s.io/v1');
    expect(list.body.items.map((l) => [l.apiVersion, l.metadata?.name])).toEqual([['coordination.k8s.io/v1', 'twin']]);

    const bad = await client.post(k8sLeases, { apiVersion: 'apps/v1', kind: 'Lease', metadata: { name: 'wrong' } });
    expectStatus(bad, 400);

    expectStatus(await client.delete(`${k8sLeases}/twin`), 200);
    expectStatus(await client.get(`${svcLeases}/twin`), 404);
  });

  it('records one field manager whichever name a write came through, shown in the name read through', async () => {
    const apply = (group: string, holder: string) =>
      client.request<Lease>('PATCH', `/apis/${group}/v1/namespaces/${ns}/leases/managed`, {
        body: { apiVersion: `${group}/v1`, kind: 'Lease', metadata: { name: 'managed' }, spec: { holderIdentity: holder } },
        contentType: 'application/apply-patch+yaml',
        query: { fieldManager: 'tool' },
      });
    expectStatus(await apply('coordination.k8s.io', 'a'), 201);
    const again = await apply('coordination.svc.io', 'b');
    expectStatus(again, 200);
    // The same manager, not a second one (or a conflict) for the other name.
    const managers = (again.body.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
    expect(managers.map((m) => [m.manager, m.operation, m.apiVersion])).toEqual([['tool', 'Apply', 'coordination.svc.io/v1']]);
    const viaKubernetes = await client.get<Lease>(`${k8sLeases}/managed`);
    expect((viaKubernetes.body.metadata?.managedFields ?? []).map((m) => m.apiVersion)).toEqual(['coordination.k8s.io/v1']);
    // managedFields sent back as read (Kubernetes' name) are taken as this group's.
    const put = await client.put<Lease>(`${k8sLeases}/managed`, { ...viaKubernetes.body, spec: { holderIdentity: 'c' } }, { fieldManager: 'tool' });
    expectStatus(put, 200);
    expect((put.body.metadata?.managedFields ?? []).map((m) => [m.manager, m.apiVersion])).toEqual(
      expect.arrayContaining([['tool', 'coordination.k8s.io/v1']]),
    );
  });

  it('streams the same changes to a watch through each name, each event in its own apiVersion', async () => {
    const svcWatch = await client.watch<Lease>(svcLeases, { resourceVersion: '0' });
    const k8sWatch = await client.watch<Lease>(k8sLeases, { resourceVersion: '0' });
    expectStatus(await client.post(svcLeases, { metadata: { name: 'watched' }, spec: { holderIdentity: 'w' } }), 201);
    const seen = (events: Array<{ type: string; object: Lease }>) => events.some((e) => e.object.metadata?.name === 'watched');
    const [a, b] = await Promise.all([svcWatch.waitFor(seen), k8sWatch.waitFor(seen)]);
    expect(a.find((e) => e.object.metadata?.name === 'watched')?.object.apiVersion).toBe('coordination.svc.io/v1');
    expect(b.find((e) => e.object.metadata?.name === 'watched')?.object.apiVersion).toBe('coordination.k8s.io/v1');
    expect(a.every((e) => e.object.apiVersion === 'coordination.svc.io/v1')).toBe(true);
    expect(b.every((e) => e.object.apiVersion === 'coordination.k8s.io/v1')).toBe(true);
    svcWatch.close();
    k8sWatch.close();
  });

  it("lists both names in discovery, legacy and aggregated, and in OpenAPI, Kubernetes' names first", async () => {
    const groups = (await client.get<{ groups: Array<{ name: string }> }>('/apis')).body.groups.map((g) => g.name);
    for (const name of ['coordination', 'rbac.authorization', 'apiextensions']) {
      expect(groups).toContain(`${name}.svc.io`);
      expect(groups.indexOf(`${name}.k8s.io`)).toBeLessThan(groups.indexOf(`${name}.svc.io`));
    }
    const aggregated = await client.get<{ items: Array<{ metadata: { name: string } }> }>('/apis', undefined, {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const names = aggregated.body.items.map((i) => i.metadata.name);
    expect(names.indexOf('coordination.k8s.io')).toBeLessThan(names.indexOf('coordination.svc.io'));
    const resources = await client.get<{ groupVersion: string; resources: Array<{ name: string }> }>('/apis/rbac.authorization.k8s.io/v1');
    expect(resources.body.groupVersion).toBe('rbac.authorization.k8s.io/v1');
    expect(resources.body.resources.map((r) => r.name)).toEqual(['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']);
    const openapi = await client.get<{ paths: Record<string, unknown> }>('/openapi/v3');
    expect(Object.keys(openapi.body.paths)).toEqual(expect.arrayContaining(['apis/coordination.svc.io/v1', 'apis/coordination.k8s.io/v1']));
  });
});

describe('kubectl with Kubernetes group names', () => {
  it('resolves a resource served under both names without ambiguity', async () => {
    await kubectl('create', '-n', ns, '-f', await manifest('lease.yaml', 'apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: plain\n'));
    const out = await kubectl('get', 'leases', '-n', ns);
    expect(out).toMatch(/^NAME\s+HOLDER\s+AGE\n/);
    expect(out).toContain('plain');
    expect(await kubectl('get', 'leases.coordination.k8s.io', 'plain', '-n', ns, '-o', 'jsonpath={.apiVersion}')).toBe('coordination.k8s.io/v1');
  });

  it('kubectl create role, rolebinding, clusterrole and clusterrolebinding', async () => {
    expect(await kubectl('create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods', '-n', ns)).toContain(
      'role.rbac.authorization.k8s.io/pod-reader created',
    );
    await kubectl('create', 'rolebinding', 'read-pods', '--role=pod-reader', '--user=alice', `--serviceaccount=${ns}:builder`, '-n', ns);
    await kubectl('create', 'clusterrole', 'node-viewer', '--verb=get,list', '--resource=nodes');
    await kubectl('create', 'clusterrolebinding', 'view-nodes', '--clusterrole=node-viewer', '--group=ops');
    const role = parseYaml(await kubectl('get', 'role', 'pod-reader', '-n', ns, '-o', 'yaml')) as Role;
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]);
    const wide = await kubectl('get', 'rolebinding', 'read-pods', '-n', ns, '-o', 'wide');
    expect(wide).toMatch(/read-pods\s+Role\/pod-reader\s+\S+\s+alice\s+builder|read-pods\s+Role\/pod-reader\s+\S+\s+alice\s+\S*builder/);
    const binding = JSON.parse(await kubectl('get', 'clusterrolebinding', 'view-nodes', '-o', 'json')) as { roleRef: unknown; subjects: unknown };
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-viewer' });
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops' }]);
    // A binding's role reference cannot change.
    const res = await runKubectl(['patch', 'rolebinding', 'read-pods', '-n', ns, '--type=merge', '-p', '{"roleRef":{"name":"other"}}'], server.kubectlEnv);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('cannot change roleRef');
  });

  it('kubectl apply of RBAC manifests and of a CRD written with apiextensions.k8s.io/v1 and x-kubernetes markers', async () => {
    const rbac = await manifest(
      'rbac.yaml',
      `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:aggregate-to-widgets
  labels: {rbac.example.com/aggregate: "true"}
rules:
- apiGroups: ["example.com"]
  resources: ["widgets"]
  verbs: ["*"]
- nonResourceURLs: ["/healthz"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: widget-editors
  namespace: ${ns}
subjects:
- kind: ServiceAccount
  name: editor
  namespace: ${ns}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:aggregate-to-widgets
`,
    );
    expect(await kubectl('apply', '-f', rbac)).toContain('clusterrole.rbac.authorization.k8s.io/system:aggregate-to-widgets created');
    expect(await kubectl('apply', '-f', rbac)).toContain('unchanged');

    const crd = await manifest(
      'crd.yaml',
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
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
            x-kubernetes-validations: [{rule: "self.size >= 0", message: size must not be negative}]
            properties:
              size: {type: integer}
              port: {x-kubernetes-int-or-string: true}
              tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
`,
    );
    const applied = await runKubectl(['apply', '-f', crd], server.kubectlEnv);
    expect(applied.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created');
    await eventually(async () =>
      expect(await kubectl('get', 'crd', 'widgets.example.com', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}')).toBe('True'),
    );
    const widget = await manifest(
      'widget.yaml',
      `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: ${ns}\nspec:\n  size: 3\n  port: http\n  tags: [a, b]\n  extra: {anything: {goes: 1}}\n`,
    );
    await kubectl('apply', '-f', widget);
    const stored = JSON.parse(await kubectl('get', 'widget', 'w1', '-n', ns, '-o', 'json')) as { spec: unknown };
    // Kept by x-kubernetes-preserve-unknown-fields, accepted as int-or-string.
    expect(stored.spec).toEqual({ size: 3, port: 'http', tags: ['a', 'b'], extra: { anything: { goes: 1 } } });
    // The x-kubernetes-validations rule is evaluated.
    const negative = await manifest(
      'negative.yaml',
      `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w3\n  namespace: ${ns}\nspec:\n  size: -1\n`,
    );
    const refused = await runKubectl(['apply', '-f', negative], server.kubectlEnv);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec: Invalid value: "object": size must not be negative');
    const dup = await manifest('dup.yaml', `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w2\n  namespace: ${ns}\nspec:\n  tags: [a, a]\n`);
    const res = await runKubectl(['apply', '-f', dup], server.kubectlEnv);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/spec\.tags\[1\]: Duplicate value/);
  });
});

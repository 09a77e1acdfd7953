import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ConfigMap, Deployment, ManagedFieldsEntry } from '@svc/api';
import { ApiClient } from './support/api-client';
import { MERGE_PATCH, configMap, create, createNamespace, eventually, expectStatus, paths } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { type KubectlResult, runKubectl, spawnKubectl } from './support/kubectl-run';

// kubectl, as a user drives it, against the real svc-apiserver process through the client
// connection file it writes.

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'kubectl-e2e';

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

/** Runs kubectl and fails with its output unless it exits 0. */
async function kubectl(...args: string[]): Promise<string> {
  const res = await runKubectl(args, server.kubectlEnv);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

/** Runs kubectl expecting a failure; returns its result. */
async function kubectlFails(...args: string[]): Promise<KubectlResult> {
  const res = await runKubectl(args, server.kubectlEnv);
  if (res.code === 0) throw new Error(`kubectl ${args.join(' ')} succeeded but should have failed:\n${res.stdout}`);
  return res;
}

async function manifest(name: string, text: string): Promise<string> {
  const file = join(server.dir, name);
  await writeFile(file, text);
  return file;
}

const webManifest = (image: string, replicas = 2) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: ${image}
        ports:
        - containerPort: 8080
      - name: sidecar
        image: registry.example/proxy:1.0
`;

const settingsManifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
  level: "3"
`;

describe('kubectl', () => {
  beforeAll(async () => {
    await createNamespace(client, ns);
  });

  it('create namespace makes a namespace', async () => {
    expect(await kubectl('create', 'namespace', 'kubectl-made')).toBe('namespace/kubectl-made created\n');
    expectStatus(await client.get(paths.namespace('kubectl-made')), 200);
  });

  it('create configmap --from-literal makes a ConfigMap', async () => {
    expect(await kubectl('create', 'configmap', 'literal', '--from-literal=greeting=hello', '-n', ns)).toBe('configmap/literal created\n');
    expect((await client.get<ConfigMap>(paths.configMap(ns, 'literal'))).body.data).toEqual({ greeting: 'hello' });
  });

  it('get namespaces prints the NAME STATUS AGE table', async () => {
    const out = await kubectl('get', 'namespaces');
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+AGE$/);
    for (const name of ['default', 'svc-system', 'svc-public', 'svc-node-lease', ns]) {
      expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${name}\\s+Active\\s+\\d+[smhd]`))]));
    }
  });

  it('create -f makes a Deployment and a ConfigMap (strict validation by default), and refuses an unknown field', async () => {
    const file = await manifest('create.yaml', `${webManifest('registry.example/app:1.0')}---\n${settingsManifest}`);
    const out = await kubectl('create', '-f', file, '-n', ns);
    expect(out).toBe('deployment.apps/web created\nconfigmap/settings created\n');

    const created = await client.get<Deployment>(paths.deployment(ns, 'web'));
    expectStatus(created, 200);
    expect(created.body.spec?.replicas).toBe(2);
    const managers = (created.body.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
    expect(managers.map((m) => `${m.manager}/${m.operation}`)).toContain('kubectl-create/Update');

    const bad = await manifest(
      'bad.yaml',
      webManifest('registry.example/app:1.0').replace('name: web', 'name: web-bad').replace('  replicas:', '  bogus: 1\n  replicas:'),
    );
    const refused = await kubectlFails('create', '-f', bad, '-n', ns);
    expect(refused.stderr).toContain('unknown field "spec.bogus"');
    expect((await client.get(paths.deployment(ns, 'web-bad'))).status).toBe(404);
  });

  it('create -f shows a 422 as Kubernetes words it', async () => {
    const file = await manifest(
      'invalid.yaml',
      webManifest('registry.example/app:1.0').replace('name: web', 'name: web-invalid').replace('replicas: 2', 'replicas: -1'),
    );
    const refused = await kubectlFails('create', '-f', file, '-n', ns);
    expect(refused.stderr).toContain('The Deployment "web-invalid" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  });

  it('get deploy,cm lists both kinds with their columns', async () => {
    const out = await kubectl('get', 'deploy,cm', '-n', ns);
    expect(out).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    expect(out).toMatch(/^deployment\.apps\/web\s+0\/2\s+0\s+0\s+\d+s$/m);
    expect(out).toMatch(/^NAME\s+DATA\s+AGE$/m);
    expect(out).toMatch(/^configmap\/settings\s+2\s+\d+s$/m);
  });

  it('run creates a pod, and get pod -o wide shows its columns', async () => {
    expect(await kubectl('run', 'solo', '--image=registry.example/app:1.0', '-n', ns)).toBe('pod/solo created\n');
    const out = await kubectl('get', 'pod', '-o', 'wide', '-n', ns);
    const [header, ...rows] = out.trim().split('\n');
    expect(header).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
    expect(rows).toEqual([expect.stringMatching(/^solo\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+<none>\s+<none>\s+<none>$/)]);
  });

  it('replace -f of an unchanged pod manifest: the default tolerations and priority come back through admission', async () => {
    const plain = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: replaced\nspec:\n  containers:\n  - name: c\n    image: registry.example/app:1.0\n`;
    const file = await manifest('replaced-pod.yaml', plain);
    expect(await kubectl('create', '-f', file, '-n', ns)).toBe('pod/replaced created\n');
    // As in Kubernetes, the account the ServiceAccount plugin set on create is not set again on update: left out, the spec differs.
    expect((await kubectlFails('replace', '-f', file, '-n', ns)).stderr).toContain(
      'The Pod "replaced" is invalid: spec: Forbidden: pod updates may not change fields other than',
    );
    await writeFile(file, plain + '  serviceAccountName: default\n');
    expect(await kubectl('replace', '-f', file, '-n', ns)).toBe('pod/replaced replaced\n');
    // A toleration that is really removed is still refused, named as Kubernetes names it.
    await writeFile(
      file,
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: replaced\nspec:\n  containers:\n  - name: c\n    image: registry.example/app:1.0\n  tolerations:\n  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n  - {key: dedicated, operator: Exists}\n  serviceAccountName: default\n`,
    );
    expect(await kubectl('replace', '-f', file, '-n', ns)).toBe('pod/replaced replaced\n');
    await writeFile(file, plain + '  serviceAccountName: default\n');
    expect((await kubectlFails('replace', '-f', file, '-n', ns)).stderr).toContain(
      'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    );
  });

  it('get -o yaml and -o json print the stored object', async () => {
    const yaml = parseYaml(await kubectl('get', 'deploy', 'web', '-n', ns, '-o', 'yaml')) as Deployment;
    expect(yaml).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns } });
    expect(yaml.spec?.strategy?.rollingUpdate).toEqual({ maxSurge: '25%', maxUnavailable: '25%' });
    const json = JSON.parse(await kubectl('get', 'cm', 'settings', '-n', ns, '-o', 'json')) as ConfigMap;
    expect(json).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { mode: 'fast', level: '3' } });
    const list = JSON.parse(await kubectl('get', 'cm', '-n', ns, '-o', 'json')) as { kind: string; items: ConfigMap[] };
    expect(list.kind).toBe('List');
    expect(list.items.map((i) => i.metadata?.name)).toContain('settings');
  });

  it('describe configmap and deployment', async () => {
    const cm = await kubectl('describe', 'configmap', 'settings', '-n', ns);
    expect(cm).toMatch(/^Name:\s+settings$/m);
    expect(cm).toMatch(/^Namespace:\s+kubectl-e2e$/m);
    expect(cm).toMatch(/^mode:\n----\nfast$/m);
    const dep = await kubectl('describe', 'deployment', 'web', '-n', ns);
    expect(dep).toMatch(/^Name:\s+web$/m);
    expect(dep).toMatch(/^Selector:\s+app=web$/m);
    expect(dep).toMatch(/^Replicas:\s+2 desired/m);
    expect(dep).toMatch(/^StrategyType:\s+RollingUpdate$/m);
    expect(dep).toMatch(/^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m);
    expect(dep).toMatch(/^\s+app:$/m);
    expect(dep).toMatch(/^\s+Image:\s+registry\.example\/app:1\.0$/m);
  });

  it('apply -f (client-side) creates, then patches with a three-way strategic merge on the second apply', async () => {
    const v1 = await manifest('apply-v1.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  keep: "1"\n  drop: "1"\n`);
    expect(await kubectl('apply', '-f', v1, '-n', ns)).toBe('configmap/applied created\n');
    const first = await client.get<ConfigMap>(paths.configMap(ns, 'applied'));
    const lastApplied = first.body.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
    expect(lastApplied).toBeDefined();
    expect(JSON.parse(lastApplied as string)).toMatchObject({ kind: 'ConfigMap', data: { keep: '1', drop: '1' } });

    // Someone else's change survives the next apply; a key removed from the file is removed.
    expectStatus(await client.patch(paths.configMap(ns, 'applied'), MERGE_PATCH, { data: { other: 'x' } }), 200);
    expect(await kubectl('apply', '-f', v1, '-n', ns)).toBe('configmap/applied unchanged\n');
    const v2 = await manifest('apply-v2.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  keep: "2"\n`);
    expect(await kubectl('apply', '-f', v2, '-n', ns)).toBe('configmap/applied configured\n');
    const second = await client.get<ConfigMap>(paths.configMap(ns, 'applied'));
    expect(second.body.data).toEqual({ keep: '2', other: 'x' });
    expect(JSON.parse(second.body.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] as string).data).toEqual({ keep: '2' });

    // A Deployment: the second apply changes one container's image, merged by name.
    const d1 = await manifest('apply-d1.yaml', webManifest('registry.example/app:1.0').replace(/web/g, 'applied-web'));
    expect(await kubectl('apply', '-f', d1, '-n', ns)).toBe('deployment.apps/applied-web created\n');
    const d2 = await manifest('apply-d2.yaml', webManifest('registry.example/app:2.0', 3).replace(/web/g, 'applied-web'));
    expect(await kubectl('apply', '-f', d2, '-n', ns)).toBe('deployment.apps/applied-web configured\n');
    const dep = await client.get<Deployment>(paths.deployment(ns, 'applied-web'));
    expect(dep.body.spec?.replicas).toBe(3);
    expect(dep.body.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'app=registry.example/app:2.0',
      'sidecar=registry.example/proxy:1.0',
    ]);
    expect(dep.body.metadata?.generation).toBe(2);
  });

  it('apply --server-side records the manager, refuses a conflicting manager, and --force-conflicts takes over', async () => {
    const file = await manifest('ssa.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  owner: first\n`);
    expect(await kubectl('apply', '--server-side', '-f', file, '-n', ns)).toBe('configmap/ssa serverside-applied\n');
    const got = await client.get<ConfigMap>(paths.configMap(ns, 'ssa'));
    const entries = (got.body.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
    expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1' })]));

    const other = await manifest('ssa-other.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  owner: second\n`);
    const conflict = await kubectlFails('apply', '--server-side', '--field-manager=other', '-f', other, '-n', ns);
    expect(conflict.stderr).toMatch(/conflict/i);
    expect(conflict.stderr).toContain('.data.owner');
    expect(await kubectl('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other, '-n', ns)).toBe(
      'configmap/ssa serverside-applied\n',
    );
    expect((await client.get<ConfigMap>(paths.configMap(ns, 'ssa'))).body.data).toEqual({ owner: 'second' });
  });

  it('apply --server-side upgrades a Deployment applied client-side: the changed fields move to kubectl, no conflict', async () => {
    const file = await manifest('upgrade.yaml', webManifest('registry.example/app:1.0', 1).replace('name: web\n', 'name: upgraded\n'));
    expect(await kubectl('apply', '-f', file, '-n', ns)).toBe('deployment.apps/upgraded created\n');
    await writeFile(file, webManifest('registry.example/app:2.0', 3).replace('name: web\n', 'name: upgraded\n'));
    expect(await kubectl('diff', '--server-side', '-f', file, '-n', ns).catch((error: Error) => error.message)).toContain('+  replicas: 3');
    expect(await kubectl('apply', '--server-side', '-f', file, '-n', ns)).toBe('deployment.apps/upgraded serverside-applied\n');
    const dep = await client.get<Deployment>(paths.deployment(ns, 'upgraded'));
    expect(dep.body.spec?.replicas).toBe(3);
    const managers = (dep.body.metadata?.managedFields ?? []).map((e) => `${e.manager}/${e.operation}`);
    expect(managers).toContain('kubectl/Apply');
    expect(managers).not.toContain('kubectl-client-side-apply/Update');
    // A second server-side apply of the same file is no conflict either, and changes nothing.
    expect(await kubectl('apply', '--server-side', '-f', file, '-n', ns)).toBe('deployment.apps/upgraded serverside-applied\n');
  });

  it('apply --server-side keeps an empty object as a field of its own (a custom resource with `selfSigned: {}`)', async () => {
    const crd = await manifest(
      'issuers-crd.yaml',
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: issuers.kubectl-e2e.example
spec:
  group: kubectl-e2e.example
  names: {kind: Issuer, plural: issuers, singular: issuer, listKind: IssuerList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            properties:
              selfSigned: {type: object, properties: {crlDistributionPoints: {type: array, items: {type: string}}}}
              ca: {type: object, properties: {secretName: {type: string}}}
`,
    );
    await kubectl('apply', '--server-side', '-f', crd);
    await kubectl('wait', '--for=condition=Established', 'crd/issuers.kubectl-e2e.example', '--timeout=20s');
    const issuer = (name: string) => `apiVersion: kubectl-e2e.example/v1\nkind: Issuer\nmetadata:\n  name: ${name}\nspec:\n  selfSigned: {}\n`;
    const managedFields = async (name: string) => {
      const out = await kubectl('get', 'issuer', name, '-n', ns, '-o', 'json', '--show-managed-fields');
      return ((JSON.parse(out) as { metadata: { managedFields?: ManagedFieldsEntry[] } }).metadata.managedFields ?? []).map((e) => ({
        manager: e.manager,
        operation: e.operation,
        fieldsV1: e.fieldsV1,
      }));
    };
    const serverSide = await manifest('issuer-ssa.yaml', issuer('ssa'));
    for (let i = 0; i < 2; i++) {
      expect(await kubectl('apply', '--server-side', '-f', serverSide, '-n', ns)).toBe('issuer.kubectl-e2e.example/ssa serverside-applied\n');
      expect(await managedFields('ssa')).toEqual([{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:selfSigned': {} } } }]);
    }
    // Client-side first, then server-side: the migration keeps spec.selfSigned, and so does every later server-side apply.
    const clientSide = await manifest('issuer-csa.yaml', issuer('csa'));
    expect(await kubectl('apply', '-f', clientSide, '-n', ns)).toBe('issuer.kubectl-e2e.example/csa created\n');
    for (let i = 0; i < 2; i++) {
      expect(await kubectl('apply', '--server-side', '-f', clientSide, '-n', ns)).toBe('issuer.kubectl-e2e.example/csa serverside-applied\n');
    }
    expect(JSON.parse(await kubectl('get', 'issuer', 'csa', '-n', ns, '-o', 'json')).spec).toEqual({ selfSigned: {} });
  });

  it('patch with the merge, strategic and json types', async () => {
    expect(await kubectl('patch', 'configmap', 'settings', '-n', ns, '--type', 'merge', '-p', '{"data":{"mode":"slow"}}')).toBe('configmap/settings patched\n');
    expect(
      await kubectl(
        'patch',
        'deployment',
        'web',
        '-n',
        ns,
        '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"registry.example/app:1.1"}]}}}}',
      ),
    ).toBe('deployment.apps/web patched\n');
    expect(await kubectl('patch', 'configmap', 'settings', '-n', ns, '--type', 'json', '-p', '[{"op":"add","path":"/data/extra","value":"added"}]')).toBe(
      'configmap/settings patched\n',
    );
    const images = await kubectl('get', 'deploy', 'web', '-n', ns, '-o', 'jsonpath={.spec.template.spec.containers[*].image}');
    expect(images).toBe('registry.example/app:1.1 registry.example/proxy:1.0');
    const cm = (await client.get<ConfigMap>(paths.configMap(ns, 'settings'))).body;
    expect(cm.data).toEqual({ mode: 'slow', level: '3', extra: 'added' });
    // A patch that changes nothing is reported as such.
    expect(await kubectl('patch', 'configmap', 'settings', '-n', ns, '--type', 'merge', '-p', '{"data":{"mode":"slow"}}')).toBe(
      'configmap/settings patched (no change)\n',
    );
  });

  it("edit sends the editor's change as a patch", async () => {
    // Without quotes the editor command is split on spaces and run directly, with the temp file appended.
    const res = await runKubectl(['edit', 'configmap', 'settings', '-n', ns], { ...server.kubectlEnv, KUBE_EDITOR: 'sed -i s/added/edited/' });
    expect(res).toMatchObject({ code: 0, stdout: 'configmap/settings edited\n' });
    expect((await client.get<ConfigMap>(paths.configMap(ns, 'settings'))).body.data?.extra).toBe('edited');
  });

  it('label adds, refuses to overwrite without --overwrite, selects, and removes with key-', async () => {
    expect(await kubectl('label', 'configmap', 'settings', 'tier=backend', '-n', ns)).toBe('configmap/settings labeled\n');
    const refused = await kubectlFails('label', 'configmap', 'settings', 'tier=frontend', '-n', ns);
    expect(refused.stderr).toContain("'tier' already has a value (backend), and --overwrite is false");
    expect(await kubectl('get', 'cm', '-l', 'tier=backend', '-n', ns, '-o', 'name')).toBe('configmap/settings\n');
    expect(await kubectl('label', 'configmap', 'settings', 'tier-', '-n', ns)).toBe('configmap/settings unlabeled\n');
    expect((await client.get<ConfigMap>(paths.configMap(ns, 'settings'))).body.metadata?.labels?.tier).toBeUndefined();
    const none = await runKubectl(['get', 'cm', '-l', 'tier=backend', '-n', ns], server.kubectlEnv);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain(`No resources found in ${ns} namespace.`);
  });

  it('annotate sets an annotation', async () => {
    expect(await kubectl('annotate', 'configmap', 'settings', 'note=hello', '-n', ns)).toBe('configmap/settings annotated\n');
    expect(await kubectl('get', 'cm', 'settings', '-n', ns, '-o', 'jsonpath={.metadata.annotations.note}')).toBe('hello');
  });

  it('scale deployment web --replicas=5 goes through the scale subresource', async () => {
    expect(await kubectl('scale', 'deployment', 'web', '--replicas=5', '-n', ns)).toBe('deployment.apps/web scaled\n');
    expect(await kubectl('get', 'deploy', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}')).toBe('5');
    const refused = await kubectlFails('scale', 'deployment', 'web', '--replicas=6', '--current-replicas=2', '-n', ns);
    expect(refused.stderr).toContain('Expected replicas to be 2, was 5');
  });

  it('get -w prints a row for each create, update and delete made elsewhere', async () => {
    const watchNs = 'kubectl-watch';
    await createNamespace(client, watchNs);
    await create(client, paths.configMaps(watchNs), configMap('before', { a: '1' }));
    const session = spawnKubectl(['get', 'cm', '-w', '--output-watch-events', '-n', watchNs, '--request-timeout=0'], server.kubectlEnv);
    try {
      await session.waitForOutput(/^ADDED\s+before\s+1\s+\S+$/m);
      await create(client, paths.configMaps(watchNs), configMap('live', { a: '1' }));
      await session.waitForOutput(/^ADDED\s+live\s+1\s+\S+$/m);
      expectStatus(await client.patch(paths.configMap(watchNs, 'live'), MERGE_PATCH, { data: { b: '2' } }), 200);
      await session.waitForOutput(/^MODIFIED\s+live\s+2\s+\S+$/m);
      expectStatus(await client.delete(paths.configMap(watchNs, 'live')), 200);
      const out = await session.waitForOutput(/^DELETED\s+live\s+2\s+\S+$/m);
      expect(out.split('\n')[0]).toMatch(/^EVENT\s+NAME\s+DATA\s+AGE$/);
    } finally {
      await session.stop();
    }

    // Without --output-watch-events: the table, then one row per change.
    const plain = spawnKubectl(['get', 'cm', '-w', '-n', watchNs, '--request-timeout=0'], server.kubectlEnv);
    try {
      await plain.waitForOutput(/^NAME\s+DATA\s+AGE\nbefore\s+1\s+\S+$/m);
      await create(client, paths.configMaps(watchNs), configMap('later'));
      await plain.waitForOutput(/^later\s+0\s+\S+$/m);
    } finally {
      await plain.stop();
    }
  }, 45_000);

  it('delete waits until the object is gone; delete -f removes what the file names', async () => {
    expect(await kubectl('delete', 'configmap', 'settings', '-n', ns)).toBe('configmap "settings" deleted\n');
    const gone = await kubectlFails('get', 'configmap', 'settings', '-n', ns);
    expect(gone.stderr).toContain('Error from server (NotFound): configmaps "settings" not found');

    const file = await manifest('delete.yaml', webManifest('registry.example/app:1.0'));
    expect(await kubectl('delete', '-f', file, '-n', ns)).toBe('deployment.apps "web" deleted\n');
    expect((await client.get(paths.deployment(ns, 'web'))).status).toBe(404);

    // An object held by a finalizer: delete --wait=false returns at once, the object stays Terminating.
    await create(client, paths.configMaps(ns), { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    expect(await kubectl('delete', 'configmap', 'held', '-n', ns, '--wait=false')).toBe('configmap "held" deleted\n');
    const held = await client.get<ConfigMap>(paths.configMap(ns, 'held'));
    expect(held.body.metadata?.deletionTimestamp).toBeTruthy();
    expectStatus(await client.patch(paths.configMap(ns, 'held'), MERGE_PATCH, { metadata: { finalizers: null } }), 200);
    await eventually(async () => expect((await client.get(paths.configMap(ns, 'held'))).status).toBe(404));
  });

  it('get --raw /readyz?verbose shows the checks', async () => {
    const out = await kubectl('get', '--raw', '/readyz?verbose');
    expect(out).toContain('[+]store ok');
    expect(out).toContain('readyz check passed');
  });

  it('api-resources lists kinds with their short names, groups and scope', async () => {
    const out = await kubectl('api-resources');
    expect(out.split('\n')[0]).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/);
    expect(out).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    expect(out).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    expect(out).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    expect(out).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
    expect(out).toMatch(/^leases\s+coordination\.svc\.io\/v1\s+true\s+Lease$/m);
    const short = await kubectl('get', 'ns', 'default', '-o', 'name');
    expect(short).toBe('namespace/default\n');
    const wide = await kubectl('api-resources', '-o', 'wide', '--api-group=apps');
    expect(wide).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s+create,delete,deletecollection,get,list,patch,update,watch\s+all$/m);
  });

  it('explain deployment.spec describes the fields from the OpenAPI document', async () => {
    const out = await kubectl('explain', 'deployment.spec');
    expect(out).toMatch(/^GROUP:\s+apps$/m);
    expect(out).toMatch(/^KIND:\s+Deployment$/m);
    expect(out).toMatch(/^VERSION:\s+v1$/m);
    expect(out).toMatch(/^FIELD:\s+spec\s+<\w+>$/m);
    expect(out).toMatch(/^\s+replicas\s+<integer>$/m);
    expect(out).toMatch(/^\s+selector\s+<\w+> -required-$/m);
    expect(out).toMatch(/^\s+template\s+<\w+> -required-$/m);
  });

  it('explain names the schema types as Kubernetes does', async () => {
    const out = await kubectl('explain', 'deployment.spec');
    expect(out).toMatch(/^FIELD:\s+spec\s+<DeploymentSpec>$/m);
    expect(out).toMatch(/^\s+selector\s+<LabelSelector> -required-$/m);
    expect(out).toMatch(/^\s+template\s+<PodTemplateSpec> -required-$/m);
    expect(out).toMatch(/^\s+strategy\s+<DeploymentStrategy>$/m);
  });
});

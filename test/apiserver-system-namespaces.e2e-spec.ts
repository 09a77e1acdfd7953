import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { KubectlIdentities } from './support/kubectl-identities';
import { type KubectlResult, runKubectl, spawnKubectl } from './support/kubectl-run';

// The system namespaces under both names: Kubernetes' kube-system, kube-public and kube-node-lease
// are the spec's svc-system, svc-public and svc-node-lease, the same namespaces holding the same
// objects. Objects are stored under the spec's name, which their metadata.namespace says; a request
// may name either in its path, its body, its field selectors and its RBAC objects, and what it reads
// through a path naming kube-system says kube-system (kubectl refuses objects of another namespace).

let server: ApiServerProcess;
let dir: string;
let as: KubectlIdentities;

async function kubectl(...args: string[]): Promise<string> {
  const res = await runKubectl(args, server.kubectlEnv);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

async function kubectlFails(...args: string[]): Promise<KubectlResult> {
  const res = await runKubectl(args, server.kubectlEnv);
  if (res.code === 0) throw new Error(`kubectl ${args.join(' ')} succeeded but should have failed:\n${res.stdout}`);
  return res;
}

async function manifest(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

// The shapes metrics-server's and kube-state-metrics' manifests install: our own fixture.
const collectorManifest = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: collector
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:collector
rules:
- apiGroups: [""]
  resources: [nodes/metrics, pods, nodes]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:collector
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:collector
subjects:
- kind: ServiceAccount
  name: collector
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: collector-auth-reader
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: extension-apiserver-authentication-reader
subjects:
- kind: ServiceAccount
  name: collector
  namespace: kube-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: collector
  namespace: kube-system
  labels:
    k8s-app: collector
spec:
  selector:
    matchLabels:
      k8s-app: collector
  template:
    metadata:
      labels:
        k8s-app: collector
    spec:
      serviceAccountName: collector
      priorityClassName: system-cluster-critical
      containers:
      - name: collector
        image: registry.example/collector:0.7
        ports:
        - name: https
          containerPort: 10250
---
apiVersion: v1
kind: Service
metadata:
  name: collector
  namespace: kube-system
  labels:
    k8s-app: collector
spec:
  selector:
    k8s-app: collector
  ports:
  - name: https
    port: 443
    targetPort: https
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-sysns-e2e-'));
  server = await startApiServerProcess({ args: ['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction'] });
  as = new KubectlIdentities(server, dir);
  await as.withCertificate('n1', 'system:node:n1', ['system:nodes']);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the system namespaces under both names', () => {
  it('installs a manifest into kube-system, read back by kubectl from both names, stored in svc-system', async () => {
    const file = await manifest('collector.yaml', collectorManifest);
    const first = await kubectl('apply', '-f', file);
    expect(first).toContain('deployment.apps/collector created');
    expect(first).toContain('rolebinding.rbac.authorization.k8s.io/collector-auth-reader created');
    for (const ns of ['kube-system', 'svc-system']) {
      const names = await kubectl('get', 'serviceaccount,deployment,service,rolebinding', '-n', ns, '-o', 'name');
      expect(names).toContain('serviceaccount/collector');
      expect(names).toContain('deployment.apps/collector');
      expect(names).toContain('service/collector');
      // Which of the group's two names kubectl prints is discovery's preference, not this test's.
      expect(names).toMatch(/rolebinding\.rbac\.authorization\.(k8s|svc)\.io\/collector-auth-reader/);
    }
    expect(await kubectl('get', 'deployment', 'collector', '-n', 'kube-system', '-o', 'jsonpath={.metadata.namespace}')).toBe('kube-system');
    expect(await kubectl('get', 'deployment', 'collector', '-n', 'svc-system', '-o', 'jsonpath={.metadata.namespace}')).toBe('svc-system');
    const all = await kubectl('get', 'deployments', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}');
    expect(all).toContain('svc-system/collector');
    expect(all).not.toContain('kube-system');
    // A second apply of the same file changes nothing.
    const again = await kubectl('apply', '-f', file);
    expect(again).toContain('deployment.apps/collector unchanged');
    // Server-side apply through either name owns the same object.
    const ssa = await kubectl('apply', '--server-side', '--field-manager=installer', '-f', file);
    expect(ssa).toContain('deployment.apps/collector serverside-applied');
    expect(await kubectl('get', 'deployment', 'collector', '-n', 'svc-system', '-o', 'jsonpath={.metadata.managedFields[*].manager}')).toContain('installer');
  });

  it('takes a body naming either name at a path naming either, and refuses another namespace', async () => {
    const body = (ns: string, name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { k: 'v' } });
    const post = async (pathNs: string, bodyNs: string, name: string) => {
      const file = await manifest(`${name}.json`, body(bodyNs, name));
      return runKubectl(['create', '--raw', `/api/v1/namespaces/${pathNs}/configmaps`, '-f', file], server.kubectlEnv);
    };
    const a = await post('kube-system', 'kube-system', 'cm-a');
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout).metadata.namespace).toBe('kube-system');
    const b = await post('svc-system', 'kube-system', 'cm-b');
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout).metadata.namespace).toBe('svc-system');
    expect((await post('kube-system', 'svc-system', 'cm-c')).code).toBe(0);
    const refused = await post('kube-system', 'default', 'cm-d');
    expect(refused.stderr).toContain('the namespace of the provided object does not match the namespace sent on the request');
    expect(await kubectl('get', 'configmap', 'cm-b', '-n', 'kube-system', '-o', 'jsonpath={.metadata.namespace}')).toBe('kube-system');
    expect(await kubectl('get', 'configmap', 'cm-a', '-n', 'svc-system', '-o', 'jsonpath={.metadata.namespace}')).toBe('svc-system');
  });

  it('selects metadata.namespace=kube-system in a list across namespaces', async () => {
    const listed = await kubectl('get', 'configmaps', '-A', '--field-selector=metadata.namespace=kube-system', '-o', 'jsonpath={.items[*].metadata.name}');
    expect(listed.split(' ')).toEqual(expect.arrayContaining(['cm-a', 'cm-b', 'cm-c']));
    const none = await kubectl('get', 'configmaps', '-A', '--field-selector=metadata.namespace!=kube-system', '-o', 'jsonpath={.items[*].metadata.name}');
    expect(none).not.toContain('cm-a');
    expect(await kubectl('get', 'ns', '--field-selector=metadata.name=kube-public', '-o', 'name')).toBe('namespace/svc-public\n');
  });

  it('delivers a watch on kube-system the events of what is written through svc-system, in kube-system', async () => {
    const watch = spawnKubectl(
      ['get', 'configmaps', '-n', 'kube-system', '--watch-only', '-o', 'jsonpath={.metadata.namespace}/{.metadata.name}{"\\n"}'],
      server.kubectlEnv,
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await kubectl('create', 'configmap', 'watched', '-n', 'svc-system', '--from-literal=k=v');
      await watch.waitForOutput(/kube-system\/watched/, 15_000);
    } finally {
      await watch.stop();
    }
  });

  it('binds RBAC written under either name to service accounts named under either', async () => {
    await kubectl('create', 'role', 'cm-reader', '-n', 'svc-system', '--verb=get', '--resource=configmaps');
    await kubectl('create', 'rolebinding', 'cm-reader', '-n', 'kube-system', '--role=cm-reader', '--serviceaccount=kube-system:collector');
    for (const ns of ['kube-system', 'svc-system']) {
      for (const user of ['system:serviceaccount:kube-system:collector', 'system:serviceaccount:svc-system:collector']) {
        await eventually(async () => expect(await kubectl('auth', 'can-i', 'get', 'configmaps', '-n', ns, `--as=${user}`)).toBe('yes\n'), 10_000);
      }
    }
    expect(
      (await runKubectl(['auth', 'can-i', 'get', 'configmaps', '-n', 'default', '--as=system:serviceaccount:kube-system:collector'], server.kubectlEnv)).stdout,
    ).toBe('no\n');
    // The manifest's RoleBinding to the authentication reader Role, which lives in svc-system.
    expect(
      await kubectl(
        'auth',
        'can-i',
        'get',
        'configmap/extension-apiserver-authentication',
        '-n',
        'kube-system',
        '--as=system:serviceaccount:kube-system:collector',
      ),
    ).toBe('yes\n');
    // The manifest's ClusterRoleBinding names the account in kube-system.
    expect(await kubectl('auth', 'can-i', 'list', 'nodes', '--as=system:serviceaccount:svc-system:collector')).toBe('yes\n');
    // A rule naming the namespace by its Kubernetes name.
    await kubectl('create', 'clusterrole', 'ns-reader', '--verb=get', '--resource=namespaces', '--resource-name=kube-public');
    await kubectl('create', 'clusterrolebinding', 'ns-reader', '--clusterrole=ns-reader', '--user=reader');
    await eventually(async () => expect(await kubectl('auth', 'can-i', 'get', 'namespace/svc-public', '--as=reader')).toBe('yes\n'), 10_000);
    expect(await kubectl('auth', 'can-i', 'get', 'namespace/kube-public', '--as=reader')).toBe('yes\n');
  });

  it('lets a node write its own Lease in kube-node-lease, and kubectl describe node shows it', async () => {
    await kubectl('create', '-f', await manifest('node.json', JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } })));
    const lease = (name: string) =>
      manifest(
        `lease-${name}.json`,
        JSON.stringify({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace: 'kube-node-lease' },
          spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new Date().toISOString().replace(/\.\d+Z$/, '.000000Z') },
        }),
      );
    await as.run('n1', 'create', '-f', await lease('n1'));
    const other = await as.fails('n1', 'create', '-f', await lease('n2'));
    expect(other.stderr).toContain('Forbidden');
    expect(await kubectl('get', 'lease', 'n1', '-n', 'svc-node-lease', '-o', 'jsonpath={.spec.holderIdentity}')).toBe('n1');
    const described = await kubectl('describe', 'node', 'n1');
    expect(described).not.toContain('Failed to get lease');
    expect(described).toMatch(/Lease:\s+HolderIdentity:\s+n1/);
  });

  it('refuses to delete the system namespaces under either name, and to make a second one of a name', async () => {
    for (const ns of ['kube-system', 'kube-public', 'svc-system', 'svc-public']) {
      expect((await kubectlFails('delete', 'namespace', ns, '--wait=false')).stderr).toContain('this namespace may not be deleted');
    }
    expect((await kubectlFails('create', 'namespace', 'kube-system')).stderr).toContain('namespaces "svc-system" already exists');
  });

  it('lists each system namespace once, under the name it is stored as', async () => {
    const names = (await kubectl('get', 'namespaces', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ');
    expect(names).toEqual(expect.arrayContaining(['default', 'svc-system', 'svc-public', 'svc-node-lease']));
    expect(names.filter((n) => n.startsWith('kube-'))).toEqual([]);
    expect(await kubectl('get', 'namespace', 'kube-system', '-o', 'name')).toBe('namespace/svc-system\n');
  });
});

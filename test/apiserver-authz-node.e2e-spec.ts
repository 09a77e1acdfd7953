import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { type KubectlResult, runKubectl } from './support/kubectl-run';
import { KubectlIdentities } from './support/kubectl-identities';

// The Node authorization mode and the NodeRestriction and OwnerReferencesPermissionEnforcement
// admission plugins as a node agent meets them: the real svc-apiserver with `Node,RBAC`, node
// identities by client certificate (CN system:node:<name>, O system:nodes), driven by kubectl.

let server: ApiServerProcess;
let dir: string;
let as: KubectlIdentities;
const env = (who: string) => as.env(who);
const kubectl = (who: string, ...args: string[]) => as.run(who, ...args);
const kubectlFails = (who: string, ...args: string[]) => as.fails(who, ...args);

async function apply(who: string, name: string, object: Record<string, unknown>): Promise<KubectlResult> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, stringify(object));
  return runKubectl(['create', '-f', file], env(who));
}

async function identity(who: string, user: string, groups: string[]): Promise<void> {
  await as.withCertificate(who, user, groups);
}

function pod(name: string, node: string, secret: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team' },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'creds', secret: { secretName: secret } }] },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-authz-node-e2e-'));
  server = await startApiServerProcess({
    serviceAccountTokens: true,
    args: ['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction,OwnerReferencesPermissionEnforcement'],
  });
  as = new KubectlIdentities(server, dir);
  await identity('n1', 'system:node:n1', ['system:nodes']);
  await identity('n2', 'system:node:n2', ['system:nodes']);
  await identity('dev', 'dev', []);
  await kubectl('admin', 'create', 'namespace', 'team');
  // No controller manager runs here to make it.
  await kubectl('admin', 'create', 'serviceaccount', 'default', '-n', 'team');
  await kubectl('admin', 'create', 'secret', 'generic', 'mine', '--from-literal=k=v1', '-n', 'team');
  await kubectl('admin', 'create', 'secret', 'generic', 'theirs', '--from-literal=k=v2', '-n', 'team');
  for (const [name, node, secret] of [
    ['web', 'n1', 'mine'],
    ['db', 'n2', 'theirs'],
  ]) {
    const created = await apply('admin', name, pod(name, node, secret));
    if (created.code !== 0) throw new Error(created.stderr);
  }
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the Node authorizer', () => {
  it('lists no rules in kubectl auth can-i --list: complete for anyone else, incomplete with its reason for a node', async () => {
    const user = await runKubectl(['auth', 'can-i', '--list', '--as=bob', '-n', 'team'], env('admin'));
    expect(user.code).toBe(0);
    expect(user.stderr).toBe('');
    expect(user.stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    const node = await runKubectl(['auth', 'can-i', '--list', '-n', 'team'], env('n1'));
    expect(node.code).toBe(0);
    expect(node.stderr).toContain('the list may be incomplete: node authorizer does not support user rule resolution');
  });

  it("lets a node read its own pod's Secret and answers 403 for another node's", async () => {
    await eventually(async () => expect(await kubectl('n1', 'get', 'secret', 'mine', '-n', 'team', '-o', 'jsonpath={.data.k}')).toBe('djE='));
    const refused = await kubectlFails('n1', 'get', 'secret', 'theirs', '-n', 'team');
    expect(refused.stderr).toContain(
      `Error from server (Forbidden): secrets "theirs" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "team": no relationship found between node 'n1' and this object`,
    );
    expect(await kubectl('n2', 'get', 'secret', 'theirs', '-n', 'team', '-o', 'name')).toContain('secret/theirs');
    // Listing Secrets is no node's business.
    expect((await kubectlFails('n1', 'get', 'secrets', '-n', 'team')).stderr).toContain('secrets is forbidden');
  });

  it('forgets the relationship when the pod goes', async () => {
    await kubectl('admin', 'delete', 'pod', 'db', '-n', 'team', '--grace-period=0', '--force');
    await eventually(async () => expect((await kubectlFails('n2', 'get', 'secret', 'theirs', '-n', 'team')).stderr).toContain('no relationship found'));
  });

  it('lets a node reach its own Node only', async () => {
    for (const name of ['n1', 'n2']) {
      const created = await apply('admin', `node-${name}`, { apiVersion: 'v1', kind: 'Node', metadata: { name } });
      if (created.code !== 0) throw new Error(created.stderr);
    }
    expect(await kubectl('n1', 'get', 'node', 'n1', '-o', 'name')).toContain('node/n1');
    expect((await kubectlFails('n1', 'get', 'node', 'n2')).stderr).toContain(
      `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot get 'n2', only its own Node object`,
    );
    await kubectl('n1', 'label', 'node', 'n1', 'team=a');
    expect((await kubectlFails('n1', 'label', 'node', 'n2', 'team=a')).stderr).toContain('nodes "n2" is forbidden');
    expect((await kubectlFails('n1', 'delete', 'namespace', 'team')).stderr).toContain('namespaces "team" is forbidden');
  });
});

describe('the storage kinds', () => {
  const canI = async (who: string, ...args: string[]) => (await runKubectl(['auth', 'can-i', ...args], env(who))).stdout.trim();

  it("lets every node provision volumes (its agent runs the local provisioner), but write only its own pods' claims' status", async () => {
    expect(await canI('n1', 'create', 'persistentvolumes')).toBe('yes');
    expect(await canI('n1', 'watch', 'persistentvolumeclaims', '--all-namespaces')).toBe('yes');
    expect(await canI('n1', 'list', 'storageclasses.storage.k8s.io')).toBe('yes');
    expect(await canI('n1', 'patch', 'persistentvolumeclaims/data', '--subresource=status', '-n', 'team')).toBe(
      "no - no relationship found between node 'n1' and this object",
    );
    expect(await canI('dev', 'create', 'persistentvolumes')).toBe('no');
    const volume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pvc-n1', annotations: { 'pv.kubernetes.io/provisioned-by': 'svc.io/local-path' } },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        local: { path: '/var/lib/svc/volumes/pvc-n1' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }] } },
      },
    };
    const created = await apply('n1', 'pvc-n1', volume);
    expect([created.code, created.stderr]).toEqual([0, '']);
    expect(await kubectl('n1', 'delete', 'pv', 'pvc-n1', '--wait=false')).toContain('deleted');
  });

  it("grants the volume controllers and the scheduler Kubernetes' storage roles", async () => {
    const as = (account: string) => `--as=system:serviceaccount:svc-system:${account}`;
    expect(await canI('admin', 'update', 'persistentvolumes/status', as('persistent-volume-binder'))).toBe('yes');
    expect(await canI('admin', 'update', 'persistentvolumeclaims', '-n', 'team', as('pvc-protection-controller'))).toBe('yes');
    expect(await canI('admin', 'update', 'persistentvolumes', as('pv-protection-controller'))).toBe('yes');
    expect(await canI('admin', 'create', 'persistentvolumeclaims', '-n', 'team', as('ephemeral-volume-controller'))).toBe('yes');
    expect(await canI('admin', 'patch', 'persistentvolumeclaims', '--subresource=status', '-n', 'team', as('expand-controller'))).toBe('yes');
    expect(await canI('admin', 'patch', 'persistentvolumeclaims', '-n', 'team', '--as=system:kube-scheduler')).toBe('yes');
    expect(await canI('admin', 'delete', 'persistentvolumes', as('pv-protection-controller'))).toBe('no');
  });
});

describe('NodeRestriction', () => {
  it('refuses restricted labels on its own Node, and another node or Lease even when RBAC would allow', async () => {
    const restricted = await kubectlFails('n1', 'label', 'node', 'n1', 'node-restriction.kubernetes.io/trusted=yes');
    expect(restricted.stderr).toContain('nodes "n1" is forbidden: node "n1" is not allowed to modify labels: node-restriction.kubernetes.io/trusted');
    // The binding Kubernetes used to make: RBAC now lets n1 write every Node and Lease, admission still does not.
    await kubectl('admin', 'create', 'clusterrolebinding', 'legacy-node-n1', '--clusterrole=system:node', '--user=system:node:n1');
    await eventually(async () => {
      const other = await kubectlFails('n1', 'label', 'node', 'n2', 'team=a');
      expect(other.stderr).toContain('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    });
    const lease = (name: string) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: 'svc-node-lease' },
      spec: { holderIdentity: name },
    });
    const own = await apply('n1', 'lease-n1', lease('n1'));
    expect(own.stderr).toBe('');
    const foreign = await apply('n1', 'lease-n2', lease('n2'));
    expect(foreign.stderr).toContain('leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node');
    const normal = await apply('n1', 'pod-n1', pod('sneaky', 'n1', 'theirs'));
    expect(normal.stderr).toContain('can only create mirror pods');
  });

  it('lets a node request a service account token only bound to one of its own pods, by uid', async () => {
    const created = await apply('admin', 'api', pod('api', 'n2', 'mine'));
    if (created.code !== 0) throw new Error(created.stderr);
    const uid = (name: string) => kubectl('admin', 'get', 'pod', name, '-n', 'team', '-o', 'jsonpath={.metadata.uid}');
    const token = (...flags: string[]) => ['create', 'token', 'default', '-n', 'team', ...flags];
    const web = ['--bound-object-kind=Pod', '--bound-object-name=web'];
    expect(await kubectl('n1', ...token(...web, `--bound-object-uid=${await uid('web')}`))).toMatch(/^ey/);
    expect((await kubectlFails('n1', ...token())).stderr).toContain('node requested token not bound to a pod');
    expect((await kubectlFails('n1', ...token(...web, '--bound-object-uid=0b5e4c1e-0000-4000-8000-000000000000'))).stderr).toContain(
      'does not match the UID in record',
    );
    const elsewhere = await kubectlFails('n1', ...token('--bound-object-kind=Pod', '--bound-object-name=api', `--bound-object-uid=${await uid('api')}`));
    expect(elsewhere.stderr).toContain('node requested token bound to a pod scheduled on a different node');
    // Anyone else is not held to it.
    expect(await kubectl('admin', ...token())).toMatch(/^ey/);
  });
});

describe('escalation and owner references', () => {
  it('still refuses a namespace admin granting more than it holds', async () => {
    await identity('ops', 'ops', []);
    await kubectl('admin', 'create', 'rolebinding', 'ops-admin', '--clusterrole=admin', '--user=ops', '-n', 'team');
    await eventually(async () => expect(await kubectl('ops', 'get', 'rolebindings', '-n', 'team', '-o', 'name')).toContain('ops-admin'));
    const escalation = await kubectlFails('ops', 'create', 'rolebinding', 'ops-root', '--clusterrole=cluster-admin', '--user=ops', '-n', 'team');
    expect(escalation.stderr).toContain('is attempting to grant RBAC permissions not currently held');
  });

  it('needs delete on an object to set its ownerReferences, and update on the owner finalizers to block its deletion', async () => {
    await kubectl('admin', 'create', 'role', 'cm-maker', '--verb=create,get', '--resource=configmaps', '-n', 'team');
    await kubectl('admin', 'create', 'rolebinding', 'dev-cm', '--role=cm-maker', '--user=dev', '-n', 'team');
    const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '00000000-0000-0000-0000-000000000001' };
    const cm = (name: string, refs: unknown[]) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team', ownerReferences: refs } });
    await eventually(async () => expect((await apply('dev', 'plain', cm('plain', []))).stderr).toBe(''));
    const owned = await apply('dev', 'owned', cm('owned', [owner]));
    expect(owned.stderr).toContain(`configmaps "owned" is forbidden: cannot set an ownerRef on a resource you can't delete`);
    await kubectl('admin', 'create', 'role', 'cm-deleter', '--verb=delete', '--resource=configmaps', '-n', 'team');
    await kubectl('admin', 'create', 'rolebinding', 'dev-cm-delete', '--role=cm-deleter', '--user=dev', '-n', 'team');
    await eventually(async () => expect((await apply('dev', 'owned', cm('owned', [owner]))).stderr).toBe(''));
    const blocking = await apply('dev', 'blocking', cm('blocking', [{ ...owner, blockOwnerDeletion: true }]));
    expect(blocking.stderr).toContain("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on");
  });
});

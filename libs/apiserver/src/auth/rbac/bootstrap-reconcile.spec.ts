import type { ApiObject } from '@svc/api';
import { registryFixture, type RegistryFixture } from '../../registry/testing/registry-fixture';
import { AUTOUPDATE_ANNOTATION, BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_ROLE_BINDINGS, BOOTSTRAP_ROLES } from './bootstrap-policy';
import { ensureBootstrapPolicy } from './bootstrap-reconcile';

const RBAC = 'rbac.authorization.k8s.io';
const READER = 'extension-apiserver-authentication-reader';
const READER_BINDING = 'system::extension-apiserver-authentication-reader';

let fixture: RegistryFixture;

const registry = (resource: string) => fixture.registry(resource, resource === 'namespaces' ? '' : RBAC);

function ensure(): Promise<void> {
  return ensureBootstrapPolicy({
    clusterRoles: registry('clusterroles'),
    clusterRoleBindings: registry('clusterrolebindings'),
    roles: registry('roles'),
    roleBindings: registry('rolebindings'),
    namespaces: registry('namespaces'),
  });
}

async function edit(resource: string, namespace: string, name: string, change: (object: Record<string, unknown>) => void): Promise<void> {
  const current = structuredClone(await registry(resource).get(namespace, name)) as ApiObject & Record<string, unknown>;
  change(current);
  await registry(resource).update(namespace, name, { value: current });
}

beforeEach(() => {
  fixture = registryFixture({ watchCache: false });
});

afterEach(async () => {
  await fixture.close();
});

describe('the bootstrap policy reconcile', () => {
  it('creates the namespaced Roles and RoleBindings, their namespace first', async () => {
    await ensure();
    expect(BOOTSTRAP_ROLES.map((r) => `${r.namespace}/${r.name}`)).toEqual([`svc-system/${READER}`]);
    const role = await registry('roles').get('svc-system', READER);
    expect(role.rules).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'] },
    ]);
    expect(role.metadata?.annotations?.[AUTOUPDATE_ANNOTATION]).toBe('true');
    expect(role.metadata?.labels?.['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
    const binding = await registry('rolebindings').get('svc-system', READER_BINDING);
    expect(binding.roleRef).toEqual({ apiGroup: RBAC, kind: 'Role', name: READER });
    expect(binding.subjects).toEqual([
      { kind: 'User', name: 'system:kube-controller-manager', apiGroup: RBAC },
      { kind: 'User', name: 'system:kube-scheduler', apiGroup: RBAC },
    ]);
    expect(BOOTSTRAP_ROLE_BINDINGS).toHaveLength(1);
    // The cluster-wide ones as before.
    const clusterRoles = await registry('clusterroles').list('');
    expect(clusterRoles.items).toHaveLength(BOOTSTRAP_CLUSTER_ROLES.length);
  });

  it('gives back lost rules and subjects on the next start, keeping what was added', async () => {
    await ensure();
    await edit('roles', 'svc-system', READER, (role) => {
      role.rules = [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }];
    });
    await edit('rolebindings', 'svc-system', READER_BINDING, (binding) => {
      binding.subjects = [{ kind: 'User', name: 'extra', apiGroup: RBAC }];
    });
    await ensure();
    const role = await registry('roles').get('svc-system', READER);
    expect(role.rules).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'] },
    ]);
    const binding = await registry('rolebindings').get('svc-system', READER_BINDING);
    expect((binding.subjects as Array<{ name: string }>).map((s) => s.name)).toEqual(['extra', 'system:kube-controller-manager', 'system:kube-scheduler']);
  });

  it('recreates a deleted Role and leaves one whose autoupdate annotation is "false" as it is', async () => {
    await ensure();
    await registry('roles').delete('svc-system', READER);
    await edit('rolebindings', 'svc-system', READER_BINDING, (binding) => {
      binding.subjects = [];
      (binding.metadata as { annotations: Record<string, string> }).annotations[AUTOUPDATE_ANNOTATION] = 'false';
    });
    await ensure();
    await expect(registry('roles').get('svc-system', READER)).resolves.toBeDefined();
    const binding = await registry('rolebindings').get('svc-system', READER_BINDING);
    expect(binding.subjects ?? []).toEqual([]);
  });

  it('uses the namespace when it exists already', async () => {
    await fixture.namespace('svc-system');
    await ensure();
    await expect(registry('rolebindings').get('svc-system', READER_BINDING)).resolves.toBeDefined();
  });
});

// Calls the typed APIs of @kubernetes/client-node (CoordinationV1Api, RbacAuthorizationV1Api,
// ApiextensionsV1Api) against the server the connection file names, as an application would, and
// prints what each call answered ({ step: summary }). Any failure exits 1 with its message.
import { ApiextensionsV1Api, CoordinationV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';

const [kubeconfig, namespace] = process.argv.slice(2);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const out = {};

try {
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const renewTime = new Date('2026-01-01T00:00:00.123Z');
  const lease = await coordination.createNamespacedLease({
    namespace,
    body: { metadata: { name: 'typed' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime } },
  });
  out.leaseCreated = {
    apiVersion: lease.apiVersion,
    holder: lease.spec?.holderIdentity,
    renewTime: lease.spec?.renewTime instanceof Date ? lease.spec.renewTime.toISOString() : lease.spec?.renewTime,
  };
  const read = await coordination.readNamespacedLease({ name: 'typed', namespace });
  read.spec.holderIdentity = 'you';
  const replaced = await coordination.replaceNamespacedLease({ name: 'typed', namespace, body: read });
  out.leaseReplaced = {
    holder: replaced.spec?.holderIdentity,
    renewTime: replaced.spec?.renewTime instanceof Date ? replaced.spec.renewTime.toISOString() : replaced.spec?.renewTime,
  };
  const leases = await coordination.listNamespacedLease({ namespace });
  out.leaseList = { apiVersion: leases.apiVersion, kind: leases.kind, names: leases.items.map((l) => l.metadata?.name) };
  await coordination.deleteNamespacedLease({ name: 'typed', namespace });
  out.leaseDeleted = true;

  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: { metadata: { name: 'typed-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
  });
  const binding = await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'typed-readers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'typed-reader' },
      subjects: [{ kind: 'User', name: 'alice' }],
    },
  });
  out.roleBinding = { apiVersion: binding.apiVersion, subjects: binding.subjects };
  await rbac.createClusterRole({ body: { metadata: { name: 'typed-viewer' }, rules: [{ nonResourceURLs: ['/version'], verbs: ['get'] }] } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'typed-viewers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'typed-viewer' },
      subjects: [{ kind: 'Group', name: 'everyone', apiGroup: 'rbac.authorization.k8s.io' }],
    },
  });
  const roles = await rbac.listNamespacedRole({ namespace });
  out.roles = roles.items.map((r) => ({ apiVersion: r.apiVersion, name: r.metadata?.name, rules: r.rules }));
  const clusterRole = await rbac.readClusterRole({ name: 'typed-viewer' });
  out.clusterRole = { kind: clusterRole.kind, rules: clusterRole.rules };
  await rbac.deleteClusterRoleBinding({ name: 'typed-viewers' });
  await rbac.deleteClusterRole({ name: 'typed-viewer' });
  out.rbacDeleted = true;

  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  const crd = await extensions.createCustomResourceDefinition({
    body: {
      metadata: { name: 'gizmos.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gizmos', kind: 'Gizmo' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    },
  });
  out.crdCreated = { apiVersion: crd.apiVersion, names: crd.spec.names, storedVersions: crd.status?.storedVersions };
  let established;
  for (let i = 0; i < 100 && !established; i++) {
    const status = await extensions.readCustomResourceDefinitionStatus({ name: 'gizmos.example.com' });
    established = status.status?.conditions?.find((c) => c.type === 'Established' && c.status === 'True');
    if (!established) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  out.crdEstablished = established !== undefined;
  const crds = await extensions.listCustomResourceDefinition();
  out.crdList = crds.items.map((c) => c.metadata?.name);
  await extensions.deleteCustomResourceDefinition({ name: 'gizmos.example.com' });
  out.crdDeleted = true;
} catch (error) {
  process.stderr.write(`${error?.stack ?? error}\n${error?.body ?? ''}\n`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(out));

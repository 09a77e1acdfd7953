import type { PolicyRule } from '@svc/api';
import { AUTHENTICATION_INFO_CONFIGMAP, AUTHENTICATION_INFO_NAMESPACE } from '@svc/machinery';
import { CONTROLLER_ACCOUNT_NAMESPACE, CONTROLLER_ROLES, controllerRoleName } from './bootstrap-controller-policy';

/**
 * The roles and bindings every cluster starts with, as Kubernetes' bootstrap policy: the user-facing
 * roles (cluster-admin, admin, edit, view and the aggregation roles they gather), discovery and
 * public information, self-reviews, and the roles of this cluster's own components. Group names are
 * Kubernetes' (each matches its svc.io twin too).
 */

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = [...READ, ...WRITE];

const RBAC_API_GROUP = 'rbac.authorization.k8s.io';
/** The label Kubernetes marks its bootstrap objects with. */
export const BOOTSTRAP_LABEL = { 'kubernetes.io/bootstrapping': 'rbac-defaults' } as const;
/** An object carrying `"false"` here is left as its owner changed it; any other is reconciled on start. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
}

function urls(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { verbs, nonResourceURLs };
}

export interface BootstrapClusterRole {
  name: string;
  rules: PolicyRule[];
  /** Labels besides the bootstrap label (aggregation targets). */
  labels?: Record<string, string>;
  /** For admin, edit and view: the label their aggregation selects. */
  aggregateFrom?: string;
}

export interface BootstrapClusterRoleBinding {
  name: string;
  role: string;
  subjects: Array<{ kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string }>;
}

/** A bootstrap Role: a ClusterRole's shape, in one namespace. */
export interface BootstrapRole {
  namespace: string;
  name: string;
  rules: PolicyRule[];
}

/** A bootstrap RoleBinding, to a Role of its own namespace. */
export interface BootstrapRoleBinding extends BootstrapClusterRoleBinding {
  namespace: string;
}

const AGGREGATE_TO_VIEW: PolicyRule[] = [
  rule(
    READ,
    [''],
    [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/status',
    ],
  ),
  rule(
    READ,
    [''],
    [
      'bindings',
      'events',
      'limitranges',
      'namespaces/status',
      'pods/log',
      'pods/status',
      'replicationcontrollers/status',
      'resourcequotas',
      'resourcequotas/status',
    ],
  ),
  rule(READ, [''], ['namespaces']),
  rule(READ, ['discovery.k8s.io'], ['endpointslices']),
  rule(
    READ,
    ['apps'],
    [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ],
  ),
  rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
  rule(READ, ['coordination.k8s.io'], ['leases']),
];

const AGGREGATE_TO_EDIT: PolicyRule[] = [
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [''], ['pods/eviction']),
  rule(
    WRITE,
    [''],
    [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'secrets',
      'serviceaccounts',
      'services',
      'services/proxy',
    ],
  ),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
  rule(
    WRITE,
    ['apps'],
    ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'],
  ),
  rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
  rule(WRITE, ['policy'], ['poddisruptionbudgets']),
  rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
  rule(WRITE, ['discovery.k8s.io'], ['endpointslices']),
  rule(WRITE, ['coordination.k8s.io'], ['leases']),
];

const AGGREGATE_TO_ADMIN: PolicyRule[] = [
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
  rule(READ_WRITE, [RBAC_API_GROUP], ['rolebindings', 'roles']),
];

const CONTROLLER_MANAGER_RULES: PolicyRule[] = [
  // The namespace controller and the garbage collector reach every kind, custom ones included.
  rule([...READ, 'delete', 'deletecollection', 'patch', 'update'], ['*'], ['*']),
  rule(['create'], [''], ['pods', 'endpoints', 'events', 'serviceaccounts', 'secrets', 'configmaps', 'persistentvolumeclaims', 'persistentvolumes']),
  rule(['create'], ['apps'], ['replicasets', 'controllerrevisions']),
  rule(['create'], ['discovery.k8s.io'], ['endpointslices']),
  rule(['create'], ['events.k8s.io'], ['events']),
  rule(['create'], ['coordination.k8s.io'], ['leases']),
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  rule(['create'], [''], ['serviceaccounts/token']),
];

const SCHEDULER_RULES: PolicyRule[] = [
  rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  rule(['create'], ['coordination.k8s.io'], ['leases']),
  rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler', 'svc-scheduler']),
  rule(['create'], [''], ['endpoints']),
  rule(['get', 'update'], [''], ['endpoints'], ['kube-scheduler', 'svc-scheduler']),
  rule(READ, [''], ['nodes']),
  rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
  rule(['create'], [''], ['bindings', 'pods/binding']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(READ, ['', 'apps'], ['replicationcontrollers', 'services', 'replicasets', 'statefulsets']),
  rule(READ, ['policy'], ['poddisruptionbudgets']),
  rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes', 'namespaces', 'configmaps']),
  rule(READ, ['storage.k8s.io'], ['csinodes', 'csidrivers', 'csistoragecapacities', 'storageclasses']),
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
];

/** What a service proxy needs (Kubernetes' `system:node-proxier`, bound to the user `system:kube-proxy`). */
const NODE_PROXIER_RULES: PolicyRule[] = [
  rule(['list', 'watch'], [''], ['services', 'endpoints']),
  rule(['get', 'list', 'watch'], [''], ['nodes']),
  rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
];

/**
 * What a cluster DNS server needs (Kubernetes' `system:kube-dns`, bound to the ServiceAccount
 * kube-system/kube-dns); EndpointSlices too, which it answers from as CoreDNS does.
 */
const KUBE_DNS_RULES: PolicyRule[] = [
  rule(['list', 'watch'], [''], ['services', 'endpoints']),
  rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
];

/** What a node agent needs (the `system:node` role); the Node authorizer grants it, scoped to the node's own objects. */
export const NODE_RULES: readonly PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
  rule(READ, [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['patch', 'update'], [''], ['nodes/status']),
  rule(['patch', 'update'], [''], ['nodes']),
  rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  rule(READ, [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(READ, [''], ['configmaps', 'secrets']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
  rule(['create'], [''], ['serviceaccounts/token']),
  // The status of its pods' claims (the Node mode and NodeRestriction narrow it), and the CSI objects.
  rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
  rule(['get', 'watch', 'list'], ['storage.k8s.io'], ['csidrivers']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
  // The handler a pod's RuntimeClass names, for the sandbox.
  rule(['get', 'list', 'watch'], ['node.k8s.io'], ['runtimeclasses']),
];

/** What the volume binding of the scheduler writes (Kubernetes' `system:volume-scheduler`, bound to the scheduler). */
const VOLUME_SCHEDULER_RULES: PolicyRule[] = [
  rule([...READ, 'update', 'patch'], [''], ['persistentvolumes']),
  rule(READ, ['storage.k8s.io'], ['storageclasses']),
  rule([...READ, 'update', 'patch'], [''], ['persistentvolumeclaims']),
];

/**
 * What a provisioner of volumes needs (Kubernetes' `system:persistent-volume-provisioner`). This cluster
 * binds it to every node: the local provisioner runs in the node agent, where the volume's directory is.
 */
const PERSISTENT_VOLUME_PROVISIONER_RULES: PolicyRule[] = [
  rule(['get', 'list', 'watch', 'create', 'delete'], [''], ['persistentvolumes']),
  rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
  rule(READ, ['storage.k8s.io'], ['storageclasses']),
  rule(['watch'], [''], ['events']),
  rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']),
];

export const BOOTSTRAP_CLUSTER_ROLES: readonly BootstrapClusterRole[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  {
    name: 'system:discovery',
    rules: [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])],
  },
  { name: 'system:public-info-viewer', rules: [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])] },
  {
    name: 'system:basic-user',
    rules: [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ],
  },
  { name: 'system:monitoring', rules: [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])] },
  { name: 'admin', rules: [], aggregateFrom: 'rbac.authorization.k8s.io/aggregate-to-admin' },
  { name: 'edit', rules: [], aggregateFrom: 'rbac.authorization.k8s.io/aggregate-to-edit', labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } },
  { name: 'view', rules: [], aggregateFrom: 'rbac.authorization.k8s.io/aggregate-to-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } },
  { name: 'system:aggregate-to-admin', rules: AGGREGATE_TO_ADMIN, labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } },
  { name: 'system:aggregate-to-edit', rules: AGGREGATE_TO_EDIT, labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } },
  { name: 'system:aggregate-to-view', rules: AGGREGATE_TO_VIEW, labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
  {
    name: 'system:auth-delegator',
    rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])],
  },
  { name: 'system:kube-controller-manager', rules: CONTROLLER_MANAGER_RULES },
  { name: 'system:kube-scheduler', rules: SCHEDULER_RULES },
  { name: 'system:node', rules: [...NODE_RULES] },
  { name: 'system:volume-scheduler', rules: VOLUME_SCHEDULER_RULES },
  { name: 'system:persistent-volume-provisioner', rules: PERSISTENT_VOLUME_PROVISIONER_RULES },
  { name: 'system:node-proxier', rules: NODE_PROXIER_RULES },
  { name: 'system:kube-dns', rules: KUBE_DNS_RULES },
  // What the API server's client certificate for node agents needs (kubeadm binds it to that identity).
  {
    name: 'system:kubelet-api-admin',
    rules: [
      rule(['get', 'list', 'watch'], [''], ['nodes']),
      rule(['proxy'], [''], ['nodes']),
      rule(['*'], [''], ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log']),
    ],
  },
  {
    name: 'system:service-account-issuer-discovery',
    rules: [urls(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])],
  },
  ...CONTROLLER_ROLES.map(({ account, rules }) => ({ name: controllerRoleName(account), rules })),
];

const AUTHENTICATED = { kind: 'Group' as const, name: 'system:authenticated' };
const UNAUTHENTICATED = { kind: 'Group' as const, name: 'system:unauthenticated' };

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly BootstrapClusterRoleBinding[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [{ kind: 'Group', name: 'system:masters' }] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [AUTHENTICATED] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [AUTHENTICATED] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: [AUTHENTICATED, UNAUTHENTICATED] },
  { name: 'system:monitoring', role: 'system:monitoring', subjects: [{ kind: 'Group', name: 'system:monitoring' }] },
  { name: 'system:kube-controller-manager', role: 'system:kube-controller-manager', subjects: [{ kind: 'User', name: 'system:kube-controller-manager' }] },
  { name: 'system:kube-scheduler', role: 'system:kube-scheduler', subjects: [{ kind: 'User', name: 'system:kube-scheduler' }] },
  // As in Kubernetes, the binding has no subjects: node agents are authorized by the Node mode, which
  // scopes them to their own pods' objects (`--authorization-mode=Node,RBAC`).
  { name: 'system:node', role: 'system:node', subjects: [] },
  { name: 'system:volume-scheduler', role: 'system:volume-scheduler', subjects: [{ kind: 'User', name: 'system:kube-scheduler' }] },
  // Not bound in Kubernetes: here every node agent runs the local provisioner for the volumes of its node.
  { name: 'system:persistent-volume-provisioner', role: 'system:persistent-volume-provisioner', subjects: [{ kind: 'Group', name: 'system:nodes' }] },
  { name: 'system:node-proxier', role: 'system:node-proxier', subjects: [{ kind: 'User', name: 'system:kube-proxy' }] },
  { name: 'system:kube-dns', role: 'system:kube-dns', subjects: [{ kind: 'ServiceAccount', name: 'kube-dns', namespace: 'kube-system' }] },
  { name: 'system:service-account-issuer-discovery', role: 'system:service-account-issuer-discovery', subjects: [AUTHENTICATED] },
  ...CONTROLLER_ROLES.map(({ account }) => ({
    name: controllerRoleName(account),
    role: controllerRoleName(account),
    subjects: [{ kind: 'ServiceAccount' as const, name: account, namespace: CONTROLLER_ACCOUNT_NAMESPACE }],
  })),
];

const AUTHENTICATION_READER = 'extension-apiserver-authentication-reader';

/**
 * Kubernetes' namespaced bootstrap roles that this cluster's components need. Its leader-locking
 * roles are left out: the controller manager's and the scheduler's cluster roles already grant what
 * their leases (and the controller manager's other lock kinds) need.
 */
export const BOOTSTRAP_ROLES: readonly BootstrapRole[] = [
  // Components doing delegated authentication read the client CAs and front-proxy settings here.
  { namespace: AUTHENTICATION_INFO_NAMESPACE, name: AUTHENTICATION_READER, rules: [rule(READ, [''], ['configmaps'], [AUTHENTICATION_INFO_CONFIGMAP])] },
];

export const BOOTSTRAP_ROLE_BINDINGS: readonly BootstrapRoleBinding[] = [
  {
    namespace: AUTHENTICATION_INFO_NAMESPACE,
    name: `system::${AUTHENTICATION_READER}`,
    role: AUTHENTICATION_READER,
    subjects: [
      { kind: 'User', name: 'system:kube-controller-manager' },
      { kind: 'User', name: 'system:kube-scheduler' },
    ],
  },
];

/** The ClusterRole objects, aggregated roles' rules filled in as Kubernetes' aggregation controller leaves them. */
export function bootstrapClusterRoleObjects(): Array<Record<string, unknown>> {
  return BOOTSTRAP_CLUSTER_ROLES.map((role) => {
    const labels = { ...BOOTSTRAP_LABEL, ...role.labels };
    const object: Record<string, unknown> = {
      apiVersion: `${RBAC_API_GROUP}/v1`,
      kind: 'ClusterRole',
      metadata: { name: role.name, labels, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
      rules: role.aggregateFrom ? aggregatedRules(role.aggregateFrom) : role.rules,
    };
    if (role.aggregateFrom) object.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [role.aggregateFrom]: 'true' } }] };
    return object;
  });
}

function aggregatedRules(label: string, seen = new Set<string>()): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const role of BOOTSTRAP_CLUSTER_ROLES) {
    if (role.labels?.[label] !== 'true' || seen.has(role.name)) continue;
    seen.add(role.name);
    rules.push(...(role.aggregateFrom ? aggregatedRules(role.aggregateFrom, seen) : role.rules));
  }
  return rules;
}

export function bootstrapClusterRoleBindingObjects(): Array<Record<string, unknown>> {
  return BOOTSTRAP_CLUSTER_ROLE_BINDINGS.map((binding) => bindingObject('ClusterRoleBinding', 'ClusterRole', binding));
}

/** The Role objects, each with its namespace in its metadata. */
export function bootstrapRoleObjects(): Array<Record<string, unknown>> {
  return BOOTSTRAP_ROLES.map((role) => ({
    apiVersion: `${RBAC_API_GROUP}/v1`,
    kind: 'Role',
    metadata: { name: role.name, namespace: role.namespace, labels: { ...BOOTSTRAP_LABEL }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    rules: role.rules,
  }));
}

export function bootstrapRoleBindingObjects(): Array<Record<string, unknown>> {
  return BOOTSTRAP_ROLE_BINDINGS.map((binding) => bindingObject('RoleBinding', 'Role', binding, binding.namespace));
}

function bindingObject(kind: string, roleKind: string, binding: BootstrapClusterRoleBinding, namespace?: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: binding.name };
  if (namespace !== undefined) metadata.namespace = namespace;
  return {
    apiVersion: `${RBAC_API_GROUP}/v1`,
    kind,
    metadata: { ...metadata, labels: { ...BOOTSTRAP_LABEL }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: RBAC_API_GROUP, kind: roleKind, name: binding.role },
    subjects: binding.subjects.map((s) => (s.kind === 'ServiceAccount' ? { ...s } : { ...s, apiGroup: RBAC_API_GROUP })),
  };
}

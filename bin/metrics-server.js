'use strict';
// The metrics server of `npm start`: svc-metrics-server on the node's address, published as Kubernetes
// publishes metrics-server: the ServiceAccount kube-system/metrics-server it acts as, its roles (read
// nodes, pods and nodes/metrics; system:auth-delegator for its reviews; the reader Role of
// extension-apiserver-authentication for the front proxy's CA), the Service kube-system/metrics-server
// (no selector: an EndpointSlice of our own points at the process), and the APIService
// v1beta1.metrics.k8s.io that the API server's aggregation proxies `kubectl top` through. The node agents
// trust it by a client certificate of their client CA in its name. SVC_METRICS_SERVER=off leaves it out.
const fs = require('node:fs');
const path = require('node:path');

const NAMESPACE = 'kube-system';
const NAME = 'metrics-server';
const USER = `system:serviceaccount:${NAMESPACE}:${NAME}`;
const IDENTITY = { user: USER, groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`] };
const PORT = Number(process.env.SVC_METRICS_SERVER_PORT || 4443);
const { applyObjects, FIELD_MANAGER: MANAGER } = require('./api-server-objects');

function enabled() {
  return process.env.SVC_METRICS_SERVER !== 'off';
}

/** The objects metrics-server's own manifest brings, in its shapes (ours, written here), but the Deployment. */
function manifests(address) {
  const labels = { 'k8s-app': NAME };
  return [
    ['serviceAccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: NAME, namespace: NAMESPACE, labels } }],
    [
      'clusterRoles',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: {
          name: 'system:aggregated-metrics-reader',
          labels: {
            ...labels,
            'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
            'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
            'rbac.authorization.k8s.io/aggregate-to-view': 'true',
          },
        },
        rules: [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
      },
    ],
    [
      'clusterRoles',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: `system:${NAME}`, labels },
        rules: [
          { apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] },
          { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
        ],
      },
    ],
    [
      'roleBindings',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `${NAME}-auth-reader`, namespace: NAMESPACE, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
        subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: NAMESPACE }],
      },
    ],
    [
      'clusterRoleBindings',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `${NAME}:system:auth-delegator`, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
        subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: NAMESPACE }],
      },
    ],
    [
      'clusterRoleBindings',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `system:${NAME}`, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `system:${NAME}` },
        subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: NAMESPACE }],
      },
    ],
    [
      'services',
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: NAME, namespace: NAMESPACE, labels },
        spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: PORT }] },
      },
    ],
    [
      'endpointSlices',
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${NAME}-svc-metrics-server`,
          namespace: NAMESPACE,
          // Another manager's label keeps the EndpointSlice controller off a slice it did not make.
          labels: { 'kubernetes.io/service-name': NAME, 'endpointslice.kubernetes.io/managed-by': MANAGER },
        },
        addressType: 'IPv4',
        endpoints: [{ addresses: [address], conditions: { ready: true } }],
        ports: [{ name: 'https', port: PORT, protocol: 'TCP' }],
      },
    ],
    // The aggregator finds the service's address in its Endpoints, as Kubernetes 1.32's does (the
    // Service has no selector, so no controller writes them).
    [
      'endpoints',
      {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: NAME, namespace: NAMESPACE, labels },
        subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port: PORT, protocol: 'TCP' }] }],
      },
    ],
  ];
}

/** The APIService, as metrics-server's manifest has it (its serving certificate is self-signed, so not verified). */
const API_SERVICE = {
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1beta1.metrics.k8s.io', labels: { 'k8s-app': NAME } },
  spec: {
    service: { name: NAME, namespace: NAMESPACE, port: 443 },
    group: 'metrics.k8s.io',
    version: 'v1beta1',
    insecureSkipTLSVerify: true,
    groupPriorityMinimum: 100,
    versionPriority: 100,
  },
};

/** Writes the objects (server-side apply: a restart moves the endpoint); tries for a while as the API server starts. */
function publishMetricsServer(adminConfig, address) {
  return applyObjects(adminConfig, [...manifests(address), ['apiServices', API_SERVICE]]);
}

/**
 * Starts svc-metrics-server on `address`:4443 once its identity file and node agent client certificate
 * are written, and publishes it. `run(name, args)` starts a component as the launcher does.
 */
async function startMetricsServer({ run, writeIdentity, issueNodeAgentClientCertificate, root, adminConfig, address, componentArgs = [] }) {
  if (!enabled()) return;
  const dir = path.join(root, 'metrics-server');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const identityPath = path.join(dir, 'metrics-server.svcconfig');
  await writeIdentity({ path: identityPath, ...IDENTITY });
  const issued = await issueNodeAgentClientCertificate(USER, IDENTITY.groups);
  const certFile = path.join(dir, 'nodeagent-client.crt');
  const keyFile = path.join(dir, 'nodeagent-client.key');
  fs.writeFileSync(keyFile, issued.keyPem, { mode: 0o600 });
  fs.writeFileSync(certFile, issued.certPem, { mode: 0o644 });
  run('svc-metrics-server', [
    `--svcconfig=${identityPath}`,
    ...componentArgs,
    `--bind-address=${address}`,
    `--secure-port=${PORT}`,
    `--cert-dir=${dir}`,
    '--metric-resolution=15s',
    // The node agents' serving certificates are their own self-signed ones, as on kind and minikube.
    '--kubelet-insecure-tls',
    '--kubelet-preferred-address-types=InternalIP',
    '--kubelet-use-node-status-port',
    `--kubelet-client-certificate=${certFile}`,
    `--kubelet-client-key=${keyFile}`,
  ]);
  await publishMetricsServer(adminConfig, address);
}

module.exports = { publishMetricsServer, startMetricsServer };

'use strict';
// The ingress controller of `npm start`: svc-ingress serving the Ingresses of the default IngressClass
// `svc` (controller svc.io/ingress) on ports 80 and 443 of every address of the host (8080 and 8443 when
// not root), proxying to the pods' addresses on the node network. It acts as the ServiceAccount
// kube-system/svc-ingress with a ClusterRole of its own (read Ingresses, their classes, Services,
// EndpointSlices and Secrets; write Ingresses' status). The class is created when missing and never
// written over, as the default StorageClass is. SVC_INGRESS=off leaves it out; SVC_INGRESS_HTTP_PORT and
// SVC_INGRESS_HTTPS_PORT move its ports.
const path = require('node:path');
const { applyObjects, clusterRoleWithBinding, createIfMissing, withAdminClient } = require('./api-server-objects');

const CLASS = 'svc';
const CONTROLLER = 'svc.io/ingress';
const ROLE = 'svc:ingress-controller';
const IDENTITY = { user: 'system:serviceaccount:kube-system:svc-ingress', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] };

function enabled() {
  return process.env.SVC_INGRESS !== 'off';
}

/** The class as `npm start` makes it: the default one, so that `kubectl create ingress` needs no --class. */
function defaultIngressClass() {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: CLASS, annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
    spec: { controller: CONTROLLER },
  };
}

const rule = (verbs, apiGroups, resources) => ({ verbs, apiGroups, resources });

/** The controller's role and binding, and its class; tries for a while as the API server starts. */
async function ensureIngressObjects(adminConfig, options) {
  const rules = [
    rule(['get', 'list', 'watch'], ['networking.k8s.io'], ['ingresses', 'ingressclasses']),
    rule(['update', 'patch'], ['networking.k8s.io'], ['ingresses/status']),
    rule(['get', 'list', 'watch'], [''], ['services', 'secrets']),
    rule(['get', 'list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    rule(['create', 'patch'], ['', 'events.k8s.io'], ['events']),
  ];
  const subjects = [{ kind: 'ServiceAccount', name: 'svc-ingress', namespace: 'kube-system' }];
  await applyObjects(adminConfig, clusterRoleWithBinding(ROLE, rules, subjects), options);
  // The class is created once and never written over: a user may edit it.
  await withAdminClient(adminConfig, (client, resources) => createIfMissing(client, resources.ingressClasses, defaultIngressClass()), options);
}

/**
 * Starts svc-ingress once its identity file, role and class are written. `run(name, args)` starts a
 * component as the launcher does; `componentArgs` (such as the other components' --master) are passed on;
 * `address` is the one published in the Ingresses' status (the host's on the node network).
 */
async function startIngressController({ run, writeIdentity, root, adminConfig, address, componentArgs = [] }) {
  if (!enabled()) return;
  const root_ = typeof process.getuid !== 'function' || process.getuid() === 0;
  const httpPort = process.env.SVC_INGRESS_HTTP_PORT || (root_ ? '80' : '8080');
  const httpsPort = process.env.SVC_INGRESS_HTTPS_PORT || (root_ ? '443' : '8443');
  const identityPath = path.join(root, 'ingress.svcconfig');
  await writeIdentity({ path: identityPath, ...IDENTITY });
  await ensureIngressObjects(adminConfig);
  run('svc-ingress', [
    `--svcconfig=${identityPath}`,
    ...componentArgs,
    '--bind-address=0.0.0.0',
    `--http-port=${httpPort}`,
    `--https-port=${httpsPort}`,
    ...(address ? [`--publish-address=${address}`] : []),
    `--controller-name=${CONTROLLER}`,
  ]);
}

module.exports = { CLASS, CONTROLLER, defaultIngressClass, ensureIngressObjects, startIngressController };

'use strict';
// The service proxy enforces NetworkPolicies (apps/proxy/src/policy), for which it reads NetworkPolicies,
// Pods and Namespaces: beyond Kubernetes' system:node-proxier role, which a kube-proxy needs without
// them. `npm start` gives its proxy (the user system:kube-proxy) this role too; a proxy without it logs
// that NetworkPolicies are not enforced.
const { applyObjects, clusterRoleWithBinding } = require('./api-server-objects');

const ROLE = 'svc:network-policy-enforcer';

/** The role and its binding to system:kube-proxy; tries for a while as the API server starts. */
function ensureNetworkPolicyRole(adminConfig, options) {
  const rules = [
    { verbs: ['list', 'watch'], apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'] },
    { verbs: ['list', 'watch'], apiGroups: [''], resources: ['pods', 'namespaces'] },
  ];
  const subjects = [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-proxy' }];
  return applyObjects(adminConfig, clusterRoleWithBinding(ROLE, rules, subjects), options);
}

module.exports = { ensureNetworkPolicyRole };

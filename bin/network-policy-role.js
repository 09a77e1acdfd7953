'use strict';
// The service proxy enforces NetworkPolicies (apps/proxy/src/policy), for which it reads NetworkPolicies,
// Pods and Namespaces: beyond Kubernetes' system:node-proxier role, which a kube-proxy needs without
// them. `npm start` gives its proxy (the user system:kube-proxy) this role too; a proxy without it logs
// that NetworkPolicies are not enforced.
const path = require('node:path');

const ROLE = 'svc:network-policy-enforcer';

/** The role and its binding to system:kube-proxy; tries for a while as the API server starts. */
async function ensureNetworkPolicyRole(adminConfig, { attempts = 30, delayMs = 1000 } = {}) {
  const dist = (lib) => require(path.join(__dirname, '..', 'dist', 'libs', lib, 'src', 'index.js'));
  const { Client, loadClientConfig, BUILTIN_RESOURCES } = dist('client');
  const client = new Client(await loadClientConfig({ svcconfig: adminConfig }));
  const params = { fieldManager: 'svc-control-plane', force: true };
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.resource(BUILTIN_RESOURCES.clusterRoles).apply(
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: ROLE },
            rules: [
              { verbs: ['list', 'watch'], apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'] },
              { verbs: ['list', 'watch'], apiGroups: [''], resources: ['pods', 'namespaces'] },
            ],
          },
          params,
        );
        await client.resource(BUILTIN_RESOURCES.clusterRoleBindings).apply(
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: ROLE },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-proxy' }],
          },
          params,
        );
        return;
      } catch (error) {
        if (attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  } finally {
    client.close();
  }
}

module.exports = { ensureNetworkPolicyRole };

'use strict';
// TLS bootstrap of nodes under `npm start`, as kubeadm sets it up: the three ClusterRoleBindings that
// let a bootstrap token ask for a node's first client certificate (system:node-bootstrapper), have it
// approved by the controller manager's csrapproving controller (nodeclient) and let nodes renew their
// own (selfnodeclient); the public `cluster-info` ConfigMap (the API server's address and CA, signed
// by the bootstrap signer for each token); and a bootstrap token for the nodes npm start runs. The
// bindings and the ConfigMap are created when missing and never written over.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { createIfMissing, withAdminClient } = require('./api-server-objects');

const BOOTSTRAPPERS = 'system:bootstrappers';

/** kubeadm's bindings (its names), binding the API server's bootstrap roles to bootstrap tokens and nodes. */
function bootstrapBindings() {
  const binding = (name, role, group) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
  });
  return [
    binding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', BOOTSTRAPPERS),
    binding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', BOOTSTRAPPERS),
    binding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'),
  ];
}

/** A kubeconfig naming only the cluster (server and CA), as kubeadm publishes it in cluster-info. */
function clusterInfoKubeconfig(server, caPem) {
  const { stringify } = require('yaml');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: '', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    contexts: null,
    'current-context': '',
    preferences: {},
    users: null,
  });
}

/** A new bootstrap token `<id>.<secret>` (six and sixteen lowercase letters or digits). */
function newBootstrapToken() {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const pick = (n) => Array.from(crypto.randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
  return `${pick(6)}.${pick(16)}`;
}

/** The Secret of a bootstrap token (kube-system/bootstrap-token-<id>), for authentication and signing. */
function bootstrapTokenSecret(token, { ttlMs, description, extraGroups } = {}) {
  const [id, secret] = token.split('.');
  const stringData = {
    'token-id': id,
    'token-secret': secret,
    'usage-bootstrap-authentication': 'true',
    'usage-bootstrap-signing': 'true',
  };
  if (description) stringData.description = description;
  if (ttlMs) stringData.expiration = new Date(Date.now() + ttlMs).toISOString().replace(/\.\d+Z$/, 'Z');
  if (extraGroups && extraGroups.length > 0) stringData['auth-extra-groups'] = extraGroups.join(',');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData,
  };
}

/** A connection file that authenticates with a bootstrap token (a node's `--bootstrap-kubeconfig`). */
function bootstrapKubeconfig(server, caPem, token) {
  const { stringify } = require('yaml');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'tls-bootstrap-token-user', user: { token } }],
    contexts: [{ name: 'tls-bootstrap-token-user@default-cluster', context: { cluster: 'default-cluster', user: 'tls-bootstrap-token-user' } }],
    'current-context': 'tls-bootstrap-token-user@default-cluster',
  });
}

/**
 * Creates what nodes need to join with a token, as the administrator of `adminConfig`: kubeadm's
 * bindings, cluster-info, and a bootstrap token (its Secret) whose connection file is written to
 * `bootstrapConfigPath` (mode 0600). Tries for a while as the API server starts.
 */
async function ensureNodeBootstrap(adminConfig, { bootstrapConfigPath, tokenTtlMs = 24 * 60 * 60 * 1000, attempts, delayMs } = {}) {
  return withAdminClient(
    adminConfig,
    async (client, resources, config) => {
      for (const binding of bootstrapBindings()) await createIfMissing(client, resources.clusterRoleBindings, binding);
      await createIfMissing(client, resources.configMaps, {
        metadata: { name: 'cluster-info', namespace: 'kube-public' },
        data: { kubeconfig: clusterInfoKubeconfig(config.server, config.ca ?? '') },
      });
      if (!bootstrapConfigPath) return undefined;
      const token = newBootstrapToken();
      await client
        .resource(resources.secrets)
        .create(bootstrapTokenSecret(token, { ttlMs: tokenTtlMs, description: 'the nodes of npm start' }), { namespace: 'kube-system' });
      fs.mkdirSync(path.dirname(bootstrapConfigPath), { recursive: true, mode: 0o700 });
      fs.writeFileSync(bootstrapConfigPath, bootstrapKubeconfig(config.server, config.ca ?? '', token), { mode: 0o600 });
      return token;
    },
    { attempts, delayMs },
  );
}

module.exports = { bootstrapBindings, bootstrapKubeconfig, bootstrapTokenSecret, clusterInfoKubeconfig, ensureNodeBootstrap, newBootstrapToken };

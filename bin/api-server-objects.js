'use strict';
// The launcher's objects in the API server (roles, bindings, Services, APIServices, default classes,
// bootstrap tokens), written with the admin's connection file. Each step tries for a while, since the
// API server may still be starting when a component does.
const path = require('node:path');

const dist = (lib) => require(path.join(__dirname, '..', 'dist', 'libs', lib, 'src', 'index.js'));
const FIELD_MANAGER = 'svc-control-plane';

/**
 * Runs `work(client, BUILTIN_RESOURCES)` with an admin client, again from the start after a failure
 * until `attempts` are spent; `work` must be safe to repeat.
 */
async function withAdminClient(adminConfig, work, { attempts = 30, delayMs = 1000 } = {}) {
  const { Client, loadClientConfig, BUILTIN_RESOURCES } = dist('client');
  const config = await loadClientConfig({ svcconfig: adminConfig });
  const client = new Client(config);
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work(client, BUILTIN_RESOURCES, config);
      } catch (error) {
        if (attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  } finally {
    client.close();
  }
}

/**
 * Applies each `[resource, object]` pair (`resource` names a client of BUILTIN_RESOURCES, such as
 * `clusterRoles`) by server-side apply as the launcher's field manager, forced: the launcher's code is
 * their source of truth.
 */
function applyObjects(adminConfig, objects, options) {
  return withAdminClient(
    adminConfig,
    async (client, resources) => {
      for (const [resource, object] of objects) {
        await client.resource(resources[resource]).apply(object, { fieldManager: FIELD_MANAGER, force: true, namespace: object.metadata.namespace });
      }
    },
    options,
  );
}

/** Creates `object` unless one of its name exists: for what a user may edit and the launcher must not write over. */
async function createIfMissing(client, resource, object) {
  const { isAlreadyExists } = dist('machinery');
  try {
    await client.resource(resource).create(object, object.metadata.namespace ? { namespace: object.metadata.namespace } : {});
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** A ClusterRole with its rules and a ClusterRoleBinding of the same name to `subjects`, as `[resource, object]` pairs. */
function clusterRoleWithBinding(name, rules, subjects) {
  return [
    ['clusterRoles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules }],
    [
      'clusterRoleBindings',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects,
      },
    ],
  ];
}

module.exports = { applyObjects, clusterRoleWithBinding, createIfMissing, FIELD_MANAGER, withAdminClient };

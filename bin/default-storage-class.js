'use strict';
// The default StorageClass of `npm start`: `local-path`, served by the node agents' local path
// provisioner (svc.io/local-path), WaitForFirstConsumer so that a claim's directory is made on the node
// its first pod is scheduled to, and Delete so that the directory goes with its claim (as k3s's class).
// It is created when missing and never written over: a user's edits (another default, another reclaim
// policy) stay across restarts. The API server itself makes no class, so clusters that do not ask have
// none. SVC_LOCAL_PATH_PROVISIONER=off leaves it out (and the node agents' provisioner off).
const { createIfMissing, withAdminClient } = require('./api-server-objects');

const DEFAULT_CLASS = 'local-path';

function enabled() {
  return process.env.SVC_LOCAL_PATH_PROVISIONER !== 'off';
}

/** The class as `npm start` makes it. */
function defaultStorageClass() {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'svc.io/local-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
}

/** Creates the default class unless a class of its name exists; tries for a while as the API server starts. */
async function ensureDefaultStorageClass(adminConfig, options) {
  if (!enabled()) return;
  await withAdminClient(adminConfig, (client, resources) => createIfMissing(client, resources.storageClasses, defaultStorageClass()), options);
}

/** Node agent flags: the provisioner is on by default, off with the class. */
function nodeAgentLocalPathArgs() {
  return enabled() ? [] : ['--local-path-provisioner=false'];
}

module.exports = { DEFAULT_CLASS, defaultStorageClass, ensureDefaultStorageClass, nodeAgentLocalPathArgs };

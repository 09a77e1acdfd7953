import type { PolicyRule } from '@svc/api';

/**
 * The roles of the controller manager's controllers when each acts as its own ServiceAccount
 * (`--use-service-account-credentials`), as Kubernetes' controller policy names and words them:
 * `system:controller:<account>` bound to the account in the system namespace. Reads of the shared
 * informers go through the manager's own identity; these rules cover what each controller writes
 * and reads by itself.
 */

/** Where the controllers' accounts live (Kubernetes' kube-system). */
export const CONTROLLER_ACCOUNT_NAMESPACE = 'svc-system';

const READ = ['get', 'list', 'watch'];

function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
}

/** The four built-in signers under Kubernetes' names and the spec's. */
const BUILT_IN_SIGNER_NAMES = [
  'kubernetes.io/kube-apiserver-client',
  'kubernetes.io/kube-apiserver-client-kubelet',
  'kubernetes.io/kubelet-serving',
  'kubernetes.io/legacy-unknown',
  'svc.io/apiserver-client',
  'svc.io/nodeagent-client',
  'svc.io/nodeagent-serving',
  'svc.io/legacy-unknown',
];

const EVENTS = rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);

/** Each account and its rules, in Kubernetes' words. */
export const CONTROLLER_ROLES: ReadonlyArray<{ account: string; rules: PolicyRule[] }> = [
  {
    account: 'deployment-controller',
    rules: [
      // Kubernetes' controller updates; this one writes the revision annotation by merge patch.
      rule(['get', 'list', 'watch', 'update', 'patch'], ['apps', 'extensions'], ['deployments']),
      rule(['update'], ['apps', 'extensions'], ['deployments/status', 'deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], ['apps', 'extensions'], ['replicasets']),
      // The Recreate strategy and the rollout checks read the pods.
      rule(['get', 'list', 'update'], [''], ['pods']),
      EVENTS,
    ],
  },
  {
    account: 'replicaset-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], ['replicasets']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/status', 'replicasets/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
      EVENTS,
    ],
  },
  {
    account: 'replication-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], [''], ['replicationcontrollers']),
      rule(['update'], [''], ['replicationcontrollers/status', 'replicationcontrollers/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
      EVENTS,
    ],
  },
  {
    account: 'statefulset-controller',
    rules: [
      rule(['list', 'watch'], [''], ['pods']),
      // The get is the uncached read that confirms a set before it adopts pods or revisions.
      rule(['get', 'list', 'watch'], ['apps'], ['statefulsets']),
      rule(['update'], ['apps'], ['statefulsets/status', 'statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], [''], ['pods']),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], ['apps'], ['controllerrevisions']),
      // The list and watch feed the claims cache the retention policy's owner references are read from.
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [''], ['persistentvolumeclaims']),
      EVENTS,
    ],
  },
  {
    account: 'namespace-controller',
    rules: [
      rule(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
      rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*']),
    ],
  },
  {
    account: 'generic-garbage-collector',
    rules: [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), EVENTS],
  },
  {
    account: 'endpoint-controller',
    rules: [
      rule(READ, [''], ['services', 'pods']),
      rule(['get', 'list', 'create', 'update', 'delete'], [''], ['endpoints']),
      rule(['create'], [''], ['endpoints/restricted']),
      EVENTS,
    ],
  },
  {
    account: 'endpointslice-controller',
    rules: [
      rule(READ, [''], ['services', 'pods', 'nodes']),
      rule(['update'], [''], ['services/finalizers']),
      rule(['create', 'update', 'delete', 'get', 'list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
      EVENTS,
    ],
  },
  {
    // The node IPAM and node lifecycle controllers, taint-based eviction included.
    account: 'node-controller',
    rules: [
      rule(['get', 'list', 'update', 'delete', 'patch'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['get', 'list', 'watch', 'delete'], [''], ['pods']),
      EVENTS,
    ],
  },
  {
    account: 'pod-garbage-collector',
    rules: [rule(['list', 'watch', 'delete'], [''], ['pods']), rule(READ, [''], ['nodes']), rule(['patch'], [''], ['pods/status'])],
  },
  {
    account: 'disruption-controller',
    rules: [
      rule(READ, ['apps', 'extensions'], ['deployments', 'replicasets']),
      rule(READ, [''], ['replicationcontrollers', 'pods']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
      // The desired scale of pods' controllers of other kinds, custom ones included.
      rule(['get'], ['*'], ['*/scale']),
      // A pod's DisruptionTarget condition left True by a disruption that did not happen is set back.
      rule(['patch', 'update'], [''], ['pods/status']),
      EVENTS,
    ],
  },
  {
    account: 'daemon-set-controller',
    rules: [
      rule(READ, ['apps', 'extensions'], ['daemonsets']),
      rule(['update'], ['apps', 'extensions'], ['daemonsets/status', 'daemonsets/finalizers']),
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], ['apps'], ['controllerrevisions']),
      EVENTS,
    ],
  },
  {
    account: 'job-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update', 'patch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['jobs/status']),
      rule(['update'], ['batch'], ['jobs/finalizers']),
      // Pods are made and removed, and their job-tracking finalizer taken off by patch.
      rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
      EVENTS,
    ],
  },
  {
    account: 'ttl-after-finished-controller',
    rules: [rule(['get', 'list', 'watch', 'delete'], ['batch'], ['jobs']), EVENTS],
  },
  {
    account: 'cronjob-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], ['batch'], ['cronjobs']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['cronjobs/status', 'cronjobs/finalizers']),
      rule(['list', 'delete'], [''], ['pods']),
      EVENTS,
    ],
  },
  {
    account: 'persistent-volume-binder',
    rules: [
      rule(['get', 'list', 'watch', 'update', 'create', 'delete'], [''], ['persistentvolumes']),
      rule(['update'], [''], ['persistentvolumes/status']),
      rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['persistentvolumeclaims/status']),
      rule(['list', 'watch', 'get', 'create', 'delete'], [''], ['pods']),
      rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['storageclasses']),
      rule(['get', 'create', 'update', 'delete'], [''], ['endpoints']),
      rule(['get', 'create', 'delete'], [''], ['services']),
      rule(['get'], [''], ['secrets']),
      rule(['get', 'list'], [''], ['nodes']),
      rule(['watch'], [''], ['events']),
      EVENTS,
    ],
  },
  {
    account: 'pvc-protection-controller',
    rules: [rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']), rule(['list', 'watch', 'get'], [''], ['pods']), EVENTS],
  },
  { account: 'pv-protection-controller', rules: [rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumes']), EVENTS] },
  {
    account: 'ephemeral-volume-controller',
    rules: [
      rule(['get', 'list', 'watch'], [''], ['pods']),
      rule(['update'], [''], ['pods/finalizers']),
      rule(['get', 'list', 'watch', 'create'], [''], ['persistentvolumeclaims']),
      EVENTS,
    ],
  },
  {
    account: 'expand-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update', 'patch'], [''], ['persistentvolumes']),
      rule(['update', 'patch'], [''], ['persistentvolumeclaims/status']),
      rule(['get', 'list', 'watch'], [''], ['persistentvolumeclaims']),
      rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['storageclasses']),
      rule(['get'], [''], ['services', 'endpoints']),
      rule(['get'], [''], ['secrets']),
      EVENTS,
    ],
  },
  {
    // csrsigning, csrapproving and csrcleaner.
    account: 'certificate-controller',
    rules: [
      rule(['delete', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
      rule(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/approval', 'certificatesigningrequests/status']),
      rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet', 'svc.io/nodeagent-client']),
      rule(['sign'], ['certificates.k8s.io'], ['signers'], BUILT_IN_SIGNER_NAMES),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      EVENTS,
    ],
  },
  {
    // The cluster-info ConfigMap of the public namespace, signed with each bootstrap token.
    account: 'bootstrap-signer',
    rules: [rule(['get', 'list', 'watch'], [''], ['secrets']), rule(['get', 'list', 'watch', 'update'], [''], ['configmaps']), EVENTS],
  },
  { account: 'token-cleaner', rules: [rule(['delete', 'get', 'list', 'watch'], [''], ['secrets']), EVENTS] },
  { account: 'service-account-controller', rules: [rule(['create'], [''], ['serviceaccounts']), EVENTS] },
  { account: 'root-ca-cert-publisher', rules: [rule(['create', 'update'], [''], ['configmaps']), EVENTS] },
  {
    // Quota counts objects of any resource, custom ones included.
    account: 'resourcequota-controller',
    rules: [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [''], ['resourcequotas/status']), EVENTS],
  },
  {
    // Any kind with a scale subresource; pods from its cache; usage from the resource metrics API.
    account: 'horizontal-pod-autoscaler',
    rules: [
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list', 'watch'], [''], ['pods']),
      rule(['list'], ['metrics.k8s.io'], ['pods']),
      rule(['get', 'list'], ['custom.metrics.k8s.io'], ['*']),
      rule(['get', 'list'], ['external.metrics.k8s.io'], ['*']),
      EVENTS,
    ],
  },
];

export const controllerRoleName = (account: string): string => `system:controller:${account}`;

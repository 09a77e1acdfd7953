import type { ControllerName } from '@svc/options';

/** The namespace of the controllers' own ServiceAccounts (Kubernetes' kube-system). */
export const CONTROLLER_SERVICE_ACCOUNT_NAMESPACE = 'svc-system';

/**
 * The ServiceAccount each built-in controller acts as under `--use-service-account-credentials`,
 * named as Kubernetes names them; each is bound to `system:controller:<account>` by the bootstrap
 * policy. The node IPAM and node lifecycle controllers share one, as in Kubernetes.
 */
export const CONTROLLER_SERVICE_ACCOUNTS: Partial<Record<ControllerName, string>> = {
  cronjob: 'cronjob-controller',
  daemonset: 'daemon-set-controller',
  deployment: 'deployment-controller',
  disruption: 'disruption-controller',
  endpoints: 'endpoint-controller',
  endpointslice: 'endpointslice-controller',
  garbagecollector: 'generic-garbage-collector',
  job: 'job-controller',
  namespace: 'namespace-controller',
  nodeipam: 'node-controller',
  nodelifecycle: 'node-controller',
  podgc: 'pod-garbage-collector',
  replicaset: 'replicaset-controller',
  replicationcontroller: 'replication-controller',
  'root-ca-cert-publisher': 'root-ca-cert-publisher',
  serviceaccount: 'service-account-controller',
  'ttl-after-finished': 'ttl-after-finished-controller',
  statefulset: 'statefulset-controller',
  'persistentvolume-binder': 'persistent-volume-binder',
  'pvc-protection': 'pvc-protection-controller',
  'pv-protection': 'pv-protection-controller',
  'ephemeral-volume': 'ephemeral-volume-controller',
  resourcequota: 'resourcequota-controller',
  csrsigning: 'certificate-controller',
  csrapproving: 'certificate-controller',
  csrcleaner: 'certificate-controller',
  bootstrapsigner: 'bootstrap-signer',
  tokencleaner: 'token-cleaner',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler',
};

/** The account of a controller; one this table misses would otherwise run with the manager's rights. */
export function controllerServiceAccount(name: ControllerName): string {
  const account = CONTROLLER_SERVICE_ACCOUNTS[name];
  if (!account) throw new Error(`no service account is known for the ${name} controller`);
  return account;
}

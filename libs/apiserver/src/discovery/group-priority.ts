import { kubernetesGroupName } from '@svc/machinery';

/**
 * The order Kubernetes lists its groups in discovery: kube-apiserver gives each built-in group a
 * priority (the aggregator's `groupPriorityMinimum`) and sorts by it, highest first, ties by name.
 * kubectl's RESTMapper takes the first group that has a resource, so this order decides which
 * group `kubectl get clusterrole` names.
 */
const KUBERNETES_GROUP_PRIORITY: Readonly<Record<string, number>> = {
  'apiregistration.k8s.io': 18000,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'resource.k8s.io': 15900,
  'storagemigration.k8s.io': 15800,
};

/** Tiers, first listed first: Kubernetes' own groups, then their specification twins, then every other group (CRDs). */
function rank(group: string): [tier: number, priority: number] {
  const own = KUBERNETES_GROUP_PRIORITY[group];
  if (own !== undefined) return [0, own];
  const twin = kubernetesGroupName(group);
  const twinPriority = twin === undefined ? undefined : KUBERNETES_GROUP_PRIORITY[twin];
  if (twinPriority !== undefined) return [1, twinPriority];
  if (twin !== undefined) return [1, 0];
  return [2, 0];
}

/** Orders named groups as kube-apiserver's `/apis` does, the core group (if present) first. */
export function compareGroupsForDiscovery(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return -1;
  if (b === '') return 1;
  const [ta, pa] = rank(a);
  const [tb, pb] = rank(b);
  if (ta !== tb) return ta - tb;
  if (pa !== pb) return pb - pa;
  return a < b ? -1 : 1;
}

/** The priority of a group of CustomResourceDefinitions (kube-apiserver's crdRegistrationController). */
export const CRD_GROUP_PRIORITY = 1000;

/**
 * The group's place in discovery as an APIService's groupPriorityMinimum, in the same order as
 * compareGroupsForDiscovery: Kubernetes' own priority for its groups; the specification twins below
 * every Kubernetes group and above the groups of CustomResourceDefinitions (1000), in their twins' order.
 * Aggregated groups take their place among them by their APIServices' priorities.
 */
export function discoveryGroupPriority(group: string): number {
  const own = KUBERNETES_GROUP_PRIORITY[group];
  if (own !== undefined) return own;
  const twin = kubernetesGroupName(group);
  if (twin !== undefined) return CRD_GROUP_PRIORITY + 1 + Math.floor((KUBERNETES_GROUP_PRIORITY[twin] ?? 0) / 20);
  return CRD_GROUP_PRIORITY;
}

/**
 * Kubernetes' well-known node labels and taint keys. The specification names none; real manifests'
 * node selectors, affinities and tolerations use these, so this product uses them unchanged.
 */

/** The node's name as its agent registered it. */
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
/** `linux` or `windows`, as Go's GOOS. */
export const LABEL_OS = 'kubernetes.io/os';
/** `amd64`, `arm64`, ..., as Go's GOARCH. */
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
/** The labels zones were read from before the topology ones; still honoured. */
export const LABEL_ZONE_LEGACY = 'failure-domain.beta.kubernetes.io/zone';
export const LABEL_REGION_LEGACY = 'failure-domain.beta.kubernetes.io/region';

/** The node's Ready condition is False. */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
/** The node's Ready condition is Unknown: its agent stopped reporting. */
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
/** `spec.unschedulable` is set (kubectl cordon). */
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_NODE_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_NODE_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_NODE_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';
export const TAINT_NODE_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';
export const TAINT_NODE_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

/** The namespace node agents keep their heartbeat Leases in (Kubernetes' `kube-node-lease`). */
export const NODE_LEASE_NAMESPACE = 'svc-node-lease';

/**
 * The system namespaces under Kubernetes' names: each is the same namespace as the spec's name it
 * maps to. Objects are stored, listed and watched under the spec's name (what `metadata.namespace`
 * says); a request may name either, in its path, its body, its field selectors and its RBAC.
 */
export const KUBERNETES_SYSTEM_NAMESPACES: ReadonlyMap<string, string> = new Map([
  ['kube-system', 'svc-system'],
  ['kube-public', 'svc-public'],
  ['kube-node-lease', NODE_LEASE_NAMESPACE],
]);

/** The name a namespace is stored under: the spec's for a Kubernetes system namespace name, else itself. */
export function storedNamespace(name: string): string {
  return KUBERNETES_SYSTEM_NAMESPACES.get(name) ?? name;
}

/** A service account's user or group name (`system:serviceaccount(s):<ns>...`) with its namespace as stored. */
export function storedServiceAccountIdentity(name: string): string {
  const match = /^(system:serviceaccounts?:)([^:]+)(:.*)?$/.exec(name);
  if (!match || !KUBERNETES_SYSTEM_NAMESPACES.has(match[2])) return name;
  return `${match[1]}${storedNamespace(match[2])}${match[3] ?? ''}`;
}

/** The scheduler a pod names when it names none. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/**
 * Names accepted by the controller manager's --controllers: the Kubernetes controller manager's
 * controllers, with the ones this product implements spelled `deployment`, `replicaset`, `namespace`,
 * `garbagecollector`, `endpoints`, `nodelifecycle` and `podgc`.
 */
export const KNOWN_CONTROLLERS = [
  'attachdetach',
  'bootstrapsigner',
  'cloud-node-lifecycle',
  'clusterrole-aggregation',
  'cronjob',
  'csrapproving',
  'csrcleaner',
  'csrsigning',
  'daemonset',
  'deployment',
  'disruption',
  'endpoints',
  'endpointslice',
  'endpointslicemirroring',
  'ephemeral-volume',
  'garbagecollector',
  'horizontalpodautoscaling',
  'job',
  'namespace',
  'nodeipam',
  'nodelifecycle',
  'persistentvolume-binder',
  'persistentvolume-expander',
  'podgc',
  'pv-protection',
  'pvc-protection',
  'replicaset',
  'replicationcontroller',
  'resource-claim-controller',
  'resourcequota',
  'root-ca-cert-publisher',
  'route',
  'service',
  'serviceaccount',
  'serviceaccount-token',
  'statefulset',
  'storage-version-gc',
  'tokencleaner',
  'ttl',
  'ttl-after-finished',
] as const;

export type ControllerName = (typeof KNOWN_CONTROLLERS)[number];

/** Controllers `*` leaves off; they run only when named. */
export const DISABLED_BY_DEFAULT_CONTROLLERS: readonly ControllerName[] = ['bootstrapsigner', 'tokencleaner'];

const known: ReadonlySet<string> = new Set(KNOWN_CONTROLLERS);

/** Why a --controllers entry is not `*`, `name` or `-name` of a known controller, or undefined if it is. */
export function controllerEntryProblem(entry: string): string | undefined {
  if (entry === '*') return undefined;
  const name = entry.startsWith('-') ? entry.slice(1) : entry;
  return known.has(name) ? undefined : `${JSON.stringify(name)} is not in the list of known controllers`;
}

/**
 * The controllers to start. For each known controller, `-name` disables it, else `name` enables it,
 * else `*` enables it unless it is off by default.
 */
export function enabledControllers(options: { controllers: readonly string[] }): Set<string> {
  const entries = new Set(options.controllers);
  const enabled = new Set<string>();
  for (const name of KNOWN_CONTROLLERS) {
    if (entries.has(`-${name}`)) continue;
    if (entries.has(name) || (entries.has('*') && !DISABLED_BY_DEFAULT_CONTROLLERS.includes(name))) enabled.add(name);
  }
  return enabled;
}

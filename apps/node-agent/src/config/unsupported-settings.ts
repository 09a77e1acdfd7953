import { isDeepStrictEqual } from 'node:util';
import { nodeAgentConfigurationKind, type NodeAgentConfiguration } from './node-agent-configuration';

/**
 * Settings of spec 3 whose behaviour this node agent does not have, with why. Set to anything but
 * their default they stop the agent (exit 2), so that no setting is accepted and then ignored. The
 * defaults themselves are accepted: every configuration holds them.
 */
export const UNSUPPORTED_SETTINGS: Readonly<Record<string, string>> = {
  httpCheckFrequency: 'static pods from a URL are not supported',
  staticPodURL: 'static pods from a URL are not supported',
  staticPodURLHeader: 'static pods from a URL are not supported',
  readOnlyPort: 'the unauthenticated read-only port is not served',
  enableContentionProfiling: 'there is no contention profiler in this runtime',
  nodeAgentCgroups: 'the agent does not move itself into a cgroup',
  systemCgroups: 'system processes are not moved into a cgroup',
  cgroupDriver: 'only the cgroupfs driver is supported',
  cpuManagerPolicy: 'there is no CPU manager',
  cpuManagerPolicyOptions: 'there is no CPU manager',
  cpuManagerReconcilePeriod: 'there is no CPU manager',
  memoryManagerPolicy: 'there is no memory manager',
  topologyManagerPolicy: 'there is no topology manager',
  topologyManagerScope: 'there is no topology manager',
  qosReserved: 'QoS memory reservation is not supported',
  hairpinMode: 'hairpin mode is set by the CNI configuration of the runtime',
  podPidsLimit: 'pod PID limits are not enforced',
  runOnce: 'run-once mode is not supported',
  maxOpenFiles: 'the agent does not change its open file limit',
  evictionHard: 'node-pressure eviction is not supported',
  evictionSoft: 'node-pressure eviction is not supported',
  evictionSoftGracePeriod: 'node-pressure eviction is not supported',
  evictionMinimumReclaim: 'node-pressure eviction is not supported',
  evictionPressureTransitionPeriod: 'node-pressure eviction is not supported',
  evictionMaxPodGracePeriod: 'node-pressure eviction is not supported',
  podsPerCore: 'pods per core are not limited',
  enableControllerAttachDetach: 'attachable volumes are not supported',
  protectKernelDefaults: 'kernel settings are not checked',
  makeIPTablesUtilChains: 'iptables chains are left to the network plugin',
  iptablesMasqueradeBit: 'iptables chains are left to the network plugin',
  iptablesDropBit: 'iptables chains are left to the network plugin',
  memorySwap: 'swap for containers is not supported',
  configMapAndSecretChangeDetectionStrategy: 'ConfigMaps and Secrets are always watched',
  reservedSystemCPUs: 'there is no CPU manager',
  systemReservedCgroup: 'reservations are not enforced on cgroups',
  svcReservedCgroup: 'reservations are not enforced on cgroups',
  enforceNodeAllocatable: 'node allocatable is not enforced on cgroups',
  allowedUnsafeSysctls: 'pod sysctls are not passed on',
  volumePluginDir: 'flex volume plugins are not supported',
  kernelMemcgNotification: 'node-pressure eviction is not supported',
  'logging.format': 'only the text log format is written',
  'logging.vmodule': 'per-file verbosity is not supported',
  'logging.options': 'log format options are not supported',
  shutdownGracePeriod: 'graceful node shutdown is not supported',
  shutdownGracePeriodCriticalPods: 'graceful node shutdown is not supported',
  shutdownGracePeriodByPodPriority: 'graceful node shutdown is not supported',
  reservedMemory: 'there is no memory manager',
  seccompDefault: 'the RuntimeDefault seccomp profile is not applied by default',
  memoryThrottlingFactor: 'memory QoS is not supported',
  tracing: 'tracing is not supported',
  localStorageCapacityIsolation: 'ephemeral storage is always reported; its isolation cannot be turned off',
  showHiddenMetricsForVersion: 'there are no hidden metrics',
  cpuCFSQuotaPeriod: 'the CFS period is the runtime default (100ms)',
};

function valueAt(obj: unknown, path: readonly string[]): unknown {
  let value = obj;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** One message per unsupported setting that differs from its default. */
export function unsupportedSettings(config: NodeAgentConfiguration): string[] {
  const kind = nodeAgentConfigurationKind();
  const problems: string[] = [];
  for (const [field, reason] of Object.entries(UNSUPPORTED_SETTINGS)) {
    const path = field.split('.');
    const value = valueAt(config, path);
    const fallback = kind.schemaAt(path)?.default;
    const isDefault = fallback === undefined ? isEmpty(value) : isDeepStrictEqual(value, fallback);
    if (!isDefault) problems.push(`${field}: Unsupported value: ${JSON.stringify(value)}: ${reason}`);
  }
  return problems;
}

import { join } from 'node:path';
import type { Pod } from '@svc/api';
import type { DNSConfig, PodSandboxConfig, PortMapping } from '@svc/cri';
import type { PodDnsSettings } from './pod-dns';
import { kernelHostname } from './pod-hostname';
import { podCgroupParent } from './container-resources';
import { podLabels, podLogDirectoryName } from './runtime-labels';

export interface SandboxSettings extends PodDnsSettings {
  /** Where the containers' logs go: one directory per pod below it. */
  podLogRoot: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
}

function portMappings(pod: Pod): PortMapping[] {
  const mappings: PortMapping[] = [];
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      if (!port.hostPort) continue;
      mappings.push({ protocol: port.protocol ?? 'TCP', containerPort: port.containerPort, hostPort: port.hostPort, hostIp: port.hostIP ?? '' });
    }
  }
  return mappings;
}

/**
 * The CRI sandbox of a pod: identity, hostname, DNS (the resolver podDns built), host ports,
 * namespaces, cgroup and log directory. Throws a HostnameError when setHostnameAsFQDN asks for an
 * FQDN longer than the kernel holds.
 */
export function sandboxConfig(pod: Pod, attempt: number, settings: SandboxSettings, dnsConfig: DNSConfig): PodSandboxConfig {
  const meta = pod.metadata ?? {};
  const spec = pod.spec ?? { containers: [] };
  const identity = { name: meta.name ?? '', uid: meta.uid ?? '', namespace: meta.namespace ?? 'default' };
  return {
    metadata: { ...identity, attempt },
    hostname: spec.hostNetwork ? undefined : kernelHostname(pod, settings.clusterDomain),
    logDirectory: join(settings.podLogRoot, podLogDirectoryName(identity)),
    dnsConfig,
    portMappings: portMappings(pod),
    labels: podLabels(pod),
    annotations: { ...(meta.annotations ?? {}) },
    linux: {
      cgroupParent: podCgroupParent(pod, settings.cgroupRoot, settings.cgroupsPerQOS),
      securityContext: {
        namespaceOptions: { network: spec.hostNetwork ? 'NODE' : 'POD', pid: spec.hostPID ? 'NODE' : 'CONTAINER', ipc: spec.hostIPC ? 'NODE' : 'POD' },
        ...(spec.securityContext?.runAsUser !== undefined ? { runAsUser: { value: spec.securityContext.runAsUser } } : {}),
        ...(spec.securityContext?.runAsGroup !== undefined ? { runAsGroup: { value: spec.securityContext.runAsGroup } } : {}),
        supplementalGroups: [
          ...(spec.securityContext?.supplementalGroups ?? []),
          ...(spec.securityContext?.fsGroup !== undefined ? [spec.securityContext.fsGroup] : []),
        ],
      },
    },
  };
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@svc/api';
import type { DNSConfig, PodSandboxConfig, PortMapping } from '@svc/cri';
import { podCgroupParent } from './container-resources';
import { podLabels, podLogDirectoryName } from './runtime-labels';

export interface SandboxSettings {
  /** Where the containers' logs go: one directory per pod below it. */
  podLogRoot: string;
  clusterDNS: readonly string[];
  clusterDomain: string;
  /** `resolvConf`: the host's resolver file for dnsPolicy Default; empty for none. */
  resolvConf: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
}

/** Kubernetes' limits on what a resolv.conf may hold. */
const MAX_SEARCHES = 32;
const MAX_NAMESERVERS = 3;

function hostResolver(path: string): DNSConfig {
  if (path === '') return {};
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  const servers: string[] = [];
  const searches: string[] = [];
  const options: string[] = [];
  for (const line of text.split('\n')) {
    const fields = line
      .replace(/[#;].*$/, '')
      .trim()
      .split(/\s+/);
    if (fields[0] === 'nameserver' && fields[1]) servers.push(fields[1]);
    else if (fields[0] === 'search') searches.splice(0, searches.length, ...fields.slice(1));
    else if (fields[0] === 'options') options.push(...fields.slice(1));
  }
  return { servers, searches, options };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ''))];
}

/** The pod's resolver by its dnsPolicy and dnsConfig, as Kubernetes builds it. */
export function podDnsConfig(pod: Pod, settings: SandboxSettings): DNSConfig {
  const spec = pod.spec ?? { containers: [] };
  const namespace = pod.metadata?.namespace ?? 'default';
  let policy = spec.dnsPolicy ?? 'ClusterFirst';
  if (spec.hostNetwork && policy === 'ClusterFirst') policy = 'Default';
  if (policy === 'ClusterFirstWithHostNet') policy = 'ClusterFirst';
  let config: DNSConfig = {};
  if (policy === 'Default' || (policy === 'ClusterFirst' && settings.clusterDNS.length === 0)) {
    config = hostResolver(settings.resolvConf);
  } else if (policy === 'ClusterFirst') {
    const host = hostResolver(settings.resolvConf);
    const domain = settings.clusterDomain;
    const searches = domain ? [`${namespace}.svc.${domain}`, `svc.${domain}`, domain] : [];
    config = { servers: [...settings.clusterDNS], searches: [...searches, ...(host.searches ?? [])], options: ['ndots:5'] };
  }
  const extra = spec.dnsConfig;
  if (extra) {
    config.servers = [...(config.servers ?? []), ...(extra.nameservers ?? [])];
    config.searches = [...(config.searches ?? []), ...(extra.searches ?? [])];
    const options = new Map<string, string>();
    for (const option of [...(config.options ?? []), ...(extra.options ?? []).map((o) => (o.value === undefined ? (o.name ?? '') : `${o.name}:${o.value}`))]) {
      options.set(option.split(':')[0], option);
    }
    config.options = [...options.values()];
  }
  return {
    servers: unique(config.servers ?? []).slice(0, MAX_NAMESERVERS),
    searches: unique(config.searches ?? []).slice(0, MAX_SEARCHES),
    options: unique(config.options ?? []),
  };
}

/** The pod's hostname: its `hostname` field, else its name cut to a DNS label. */
export function podHostname(pod: Pod): string {
  return (pod.spec?.hostname || pod.metadata?.name || '').slice(0, 63).replace(/[-.]+$/, '');
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

/** The CRI sandbox of a pod: identity, hostname, DNS, host ports, namespaces, cgroup and log directory. */
export function sandboxConfig(pod: Pod, attempt: number, settings: SandboxSettings): PodSandboxConfig {
  const meta = pod.metadata ?? {};
  const spec = pod.spec ?? { containers: [] };
  const identity = { name: meta.name ?? '', uid: meta.uid ?? '', namespace: meta.namespace ?? 'default' };
  return {
    metadata: { ...identity, attempt },
    hostname: spec.hostNetwork ? undefined : podHostname(pod),
    logDirectory: join(settings.podLogRoot, podLogDirectoryName(identity)),
    dnsConfig: podDnsConfig(pod, settings),
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

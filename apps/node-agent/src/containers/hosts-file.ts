import { readFile } from 'node:fs/promises';
import type { Pod } from '@svc/api';
import { podDomain, podHostname } from './pod-hostname';

/** The node's own hosts file, the base of a host-network pod's. */
export const NODE_HOSTS_FILE = '/etc/hosts';

function aliasLines(pod: Pod): string {
  const aliases = pod.spec?.hostAliases ?? [];
  if (aliases.length === 0) return '';
  return `\n# Entries added by HostAliases.\n${aliases.map((a) => `${a.ip}\t${(a.hostnames ?? []).join('\t')}\n`).join('')}`;
}

/**
 * The /etc/hosts the node agent mounts into each container of a pod, as the kubelet writes it: for a
 * pod of its own network, localhost, the pod's addresses under its hostname (and its FQDN first, with a
 * subdomain), then its hostAliases; for a host-network pod, the node's hosts file and the hostAliases.
 */
export async function hostsFileContent(pod: Pod, podIPs: readonly string[], clusterDomain: string, nodeHostsFile = NODE_HOSTS_FILE): Promise<string> {
  if (pod.spec?.hostNetwork) return `# Kubernetes-managed hosts file (host network).\n${await readFile(nodeHostsFile, 'utf8')}${aliasLines(pod)}`;
  const hostname = podHostname(pod);
  const domain = podDomain(pod, clusterDomain);
  const names = domain ? `${hostname}.${domain}\t${hostname}` : hostname;
  const lines = [
    '# Kubernetes-managed hosts file.',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix',
    'fe00::1\tip6-allnodes',
    'fe00::2\tip6-allrouters',
    ...podIPs.map((ip) => `${ip}\t${names}`),
  ];
  return `${lines.join('\n')}\n${aliasLines(pod)}`;
}

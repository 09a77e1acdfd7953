import { networkInterfaces } from 'node:os';
import type { Node } from '@svc/api';
import { canonicalCidr, canonicalIp, cidrContains, cidrFamilyOf, ipFamilyOf, isLoopback, type IpFamily } from '../model/ip';
import type { LocalTraffic } from '../model/proxy-state';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/**
 * The node's primary IP in each family (kube-proxy's node IPs): `--bind-address` when it names one,
 * else the Node's first InternalIP of the family, else its first ExternalIP.
 */
export function primaryNodeIPs(bindAddress: string, node: Node | undefined): Map<IpFamily, string> {
  const out = new Map<IpFamily, string>();
  const given = bindAddress && bindAddress !== '0.0.0.0' && bindAddress !== '::' ? ipFamilyOf(bindAddress) : undefined;
  if (given) out.set(given, canonicalIp(bindAddress));
  const addresses = node?.status?.addresses ?? [];
  for (const type of ['InternalIP', 'ExternalIP']) {
    for (const a of addresses) {
      if (a.type !== type) continue;
      const family = ipFamilyOf(a.address);
      if (family && !out.has(family)) out.set(family, canonicalIp(a.address));
    }
  }
  return out;
}

/** This host's addresses, by family (the network namespace the proxy runs in). */
export function localAddresses(): Map<IpFamily, string[]> {
  const out = new Map<IpFamily, string[]>([
    ['IPv4', []],
    ['IPv6', []],
  ]);
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === 'IPv6' && a.scopeid) continue; // link-local addresses take no NodePort traffic
      const family = ipFamilyOf(a.address);
      if (family) out.get(family)!.push(canonicalIp(a.address));
    }
  }
  return out;
}

/**
 * The addresses NodePorts answer on in `family`: `all` (every local address but loopback), or a
 * list. `--nodeport-addresses` empty means `primary` in nftables mode (as kube-proxy) and all in
 * iptables mode; `primary` means the node's primary IP; CIDRs pick the local addresses inside them
 * (a CIDR of all addresses means all). Loopback addresses are never in a list: NodePorts on
 * 127.0.0.1 would need route_localnet, which the nftables mode never sets.
 */
export function nodePortAddressesFor(
  setting: readonly string[],
  nftablesMode: boolean,
  family: IpFamily,
  primary: ReadonlyMap<IpFamily, string>,
  local: ReadonlyMap<IpFamily, readonly string[]>,
): { addresses: 'all' | string[]; skippedLoopback: boolean } {
  const effective = setting.length === 0 ? (nftablesMode ? ['primary'] : []) : setting;
  if (effective.length === 0) return { addresses: 'all', skippedLoopback: false };
  let skippedLoopback = false;
  const keep = (ips: readonly string[]) =>
    ips.filter((ip) => {
      if (!isLoopback(ip)) return true;
      skippedLoopback = true;
      return false;
    });
  if (effective[0] === 'primary') {
    const ip = primary.get(family);
    return { addresses: ip ? keep([ip]) : [], skippedLoopback };
  }
  const cidrs = effective.filter((c) => cidrFamilyOf(c) === family).map(canonicalCidr);
  if (cidrs.some((c) => c.endsWith('/0'))) return { addresses: 'all', skippedLoopback: false };
  const picked = (local.get(family) ?? []).filter((ip) => cidrs.some((c) => cidrContains(c, ip)));
  return { addresses: keep([...new Set(picked)].sort()), skippedLoopback };
}

export interface LocalDetectSettings {
  detectLocalMode: 'ClusterCIDR' | 'NodeCIDR' | 'BridgeInterface' | 'InterfaceNamePrefix';
  clusterCidr: string;
  podBridgeInterface?: string;
  podInterfaceNamePrefix?: string;
}

/** How pod traffic is told apart in `family`, from `--detect-local-mode` and the Node's pod CIDRs. */
export function localTrafficFor(settings: LocalDetectSettings, node: Node | undefined, family: IpFamily): LocalTraffic {
  switch (settings.detectLocalMode) {
    case 'ClusterCIDR': {
      const cidrs = settings.clusterCidr
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c && cidrFamilyOf(c) === family);
      return cidrs.length ? { kind: 'cidr', cidrs: cidrs.map(canonicalCidr) } : { kind: 'none' };
    }
    case 'NodeCIDR': {
      const cidrs = (node?.spec?.podCIDRs?.length ? node.spec.podCIDRs : node?.spec?.podCIDR ? [node.spec.podCIDR] : []).filter(
        (c) => cidrFamilyOf(c) === family,
      );
      return cidrs.length ? { kind: 'cidr', cidrs: cidrs.map(canonicalCidr) } : { kind: 'none' };
    }
    case 'BridgeInterface':
      return { kind: 'interface', name: settings.podBridgeInterface ?? '' };
    case 'InterfaceNamePrefix':
      return { kind: 'interface-prefix', prefix: settings.podInterfaceNamePrefix ?? '' };
  }
}

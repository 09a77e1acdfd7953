import { endpointNameBase, servicePortNameBase } from '../model/chain-names';
import type { EndpointInfo } from '../model/endpoints';
import { cidrContains } from '../model/ip';
import { externallyAccessible, usesClusterEndpoints, usesLocalEndpoints } from '../model/service-port';
import {
  DestinationClaims,
  planPorts,
  type LocalTraffic,
  type NoLocalEndpoints,
  type ProblemsByService,
  type ProxyRuleConfig,
  type ProxyState,
} from '../model/proxy-state';
import type { NftChain, NftFamily, NftHook, NftMap, NftSet, NftTable } from './nft-table';

/** The proxy's table, in each family: one table of its own, as kube-proxy keeps `kube-proxy`. */
export const NFT_TABLE_NAME = 'svc-proxy';

// Fixed chains, sets and maps (kube-proxy's names).
const SERVICES = 'services';
const SERVICE_IPS = 'service-ips';
const SERVICE_NODEPORTS = 'service-nodeports';
const NODEPORT_IPS = 'nodeport-ips';
const CLUSTER_IPS = 'cluster-ips';
const CLUSTER_IPS_CHECK = 'cluster-ips-check';
const ENDPOINTS_CHECK = 'endpoints-check';
const NO_ENDPOINT_SERVICES = 'no-endpoint-services';
const NO_ENDPOINT_NODEPORTS = 'no-endpoint-nodeports';
const REJECT_CHAIN = 'reject-chain';
const FIREWALL_IPS = 'firewall-ips';
const FIREWALL_CHECK = 'firewall-check';
const MARK_MASQ = 'mark-for-masquerade';
const MASQUERADING = 'masquerading';

// Numeric priorities: dstnat is -100, srcnat 100. The filter chains see the destination before DNAT.
const DSTNAT = -100;
const SRCNAT = 100;

interface BaseChain {
  name: string;
  hook: NftHook;
  jumps: string[];
}

export function nftFamily(config: ProxyRuleConfig): NftFamily {
  return config.family === 'IPv4' ? 'ip' : 'ip6';
}

function ipWords(config: ProxyRuleConfig) {
  const v4 = config.family === 'IPv4';
  return { ip: v4 ? 'ip' : 'ip6', addr: v4 ? 'ipv4_addr' : 'ipv6_addr', noLocalhost: v4 ? 'ip daddr != 127.0.0.0/8' : 'ip6 daddr != ::1' };
}

/** `ip saddr 10.244.0.0/16` and its negation, or interface matches, for the detect-local mode. */
export function localTrafficMatch(local: LocalTraffic, ip: string): { ifLocal: string; ifNotLocal: string } | undefined {
  switch (local.kind) {
    case 'cidr':
      if (local.cidrs.length === 0) return undefined;
      return local.cidrs.length === 1
        ? { ifLocal: `${ip} saddr ${local.cidrs[0]}`, ifNotLocal: `${ip} saddr != ${local.cidrs[0]}` }
        : { ifLocal: `${ip} saddr { ${local.cidrs.join(', ')} }`, ifNotLocal: `${ip} saddr != { ${local.cidrs.join(', ')} }` };
    case 'interface':
      return { ifLocal: `iifname "${local.name}"`, ifNotLocal: `iifname != "${local.name}"` };
    case 'interface-prefix':
      return { ifLocal: `iifname "${local.prefix}*"`, ifNotLocal: `iifname != "${local.prefix}*"` };
    default:
      return undefined;
  }
}

export interface NftRulesResult {
  readonly table: NftTable;
  readonly noLocalEndpoints: NoLocalEndpoints;
  /** Problems found while programming (destinations claimed twice), by Service. */
  readonly problems: ProblemsByService;
}

/**
 * The whole table for one family, as kube-proxy's nftables mode lays it out: base chains on the
 * netfilter hooks jump to `services` (DNAT: `service-ips` maps cluster, external and load balancer
 * IPs with protocol and port to a chain per service port, `service-nodeports` node ports), to
 * `endpoints-check` (reject traffic to a port with no endpoint, drop node port traffic under Local
 * policy with no local endpoint), `firewall-check` (load balancer source ranges) and `masquerading`
 * (SNAT of what was marked). A service port's chain picks an endpoint chain at random (`numgen`),
 * after any ClientIP affinity it remembers in one set per endpoint; the endpoint chain DNATs.
 */
export function nftablesRules(config: ProxyRuleConfig, state: ProxyState, tableName = NFT_TABLE_NAME): NftRulesResult {
  const { ip, addr, noLocalhost } = ipWords(config);
  const mark = `0x${config.masqueradeMark.toString(16).padStart(8, '0')}`;
  const local = localTrafficMatch(config.localTraffic, ip);
  const matchAllNodePorts = config.nodePortAddresses === 'all';

  const chains = new Map<string, NftChain>();
  const sets = new Map<string, NftSet>();
  const maps = new Map<string, NftMap>();
  const chain = (name: string, rules: string[], hook?: NftHook) => chains.set(name, { name, rules, ...(hook ? { hook } : {}) });
  const map = (name: string, type: string, comment: string) => {
    const elements = new Map<string, string>();
    maps.set(name, { name, type: `${type} : verdict`, comment, elements });
    return elements;
  };

  const base: BaseChain[] = [
    { name: 'filter-prerouting', hook: { type: 'filter', hook: 'prerouting', priority: DSTNAT - 10 }, jumps: [`ct state new jump ${FIREWALL_CHECK}`] },
    { name: 'filter-input', hook: { type: 'filter', hook: 'input', priority: DSTNAT - 10 }, jumps: [`ct state new jump ${ENDPOINTS_CHECK}`] },
    {
      name: 'filter-forward',
      hook: { type: 'filter', hook: 'forward', priority: DSTNAT - 10 },
      jumps: [`ct state new jump ${ENDPOINTS_CHECK}`, `ct state new jump ${CLUSTER_IPS_CHECK}`],
    },
    {
      name: 'filter-output',
      hook: { type: 'filter', hook: 'output', priority: DSTNAT - 10 },
      jumps: [`ct state new jump ${ENDPOINTS_CHECK}`, `ct state new jump ${FIREWALL_CHECK}`],
    },
    // After DNAT: traffic still addressed to a cluster IP matched no service port.
    { name: 'filter-output-post-dnat', hook: { type: 'filter', hook: 'output', priority: DSTNAT + 10 }, jumps: [`ct state new jump ${CLUSTER_IPS_CHECK}`] },
    { name: 'nat-prerouting', hook: { type: 'nat', hook: 'prerouting', priority: DSTNAT }, jumps: [`jump ${SERVICES}`] },
    { name: 'nat-output', hook: { type: 'nat', hook: 'output', priority: DSTNAT }, jumps: [`jump ${SERVICES}`] },
    { name: 'nat-postrouting', hook: { type: 'nat', hook: 'postrouting', priority: SRCNAT }, jumps: [`jump ${MASQUERADING}`] },
  ];
  for (const b of base) chain(b.name, b.jumps, b.hook);

  chain(MARK_MASQ, [`meta mark set meta mark or ${mark}`]);
  chain(MASQUERADING, [`meta mark & ${mark} == 0 return`, `meta mark set meta mark xor ${mark}`, 'masquerade fully-random']);

  const serviceIps = map(SERVICE_IPS, `${addr} . inet_proto . inet_service`, 'ClusterIP, ExternalIP and LoadBalancer IP traffic');
  const serviceNodePorts = map(SERVICE_NODEPORTS, 'inet_proto . inet_service', 'NodePort traffic');
  const noEndpointServices = map(NO_ENDPOINT_SERVICES, `${addr} . inet_proto . inet_service`, 'drop or reject traffic to service ports with no endpoints');
  const noEndpointNodePorts = map(NO_ENDPOINT_NODEPORTS, 'inet_proto . inet_service', 'drop or reject traffic to node ports with no endpoints');
  const firewallIps = map(FIREWALL_IPS, `${addr} . inet_proto . inet_service`, 'destinations subject to loadBalancerSourceRanges');
  const clusterIps = new Set<string>();

  const nodePortMatch = matchAllNodePorts ? `fib daddr type local ${noLocalhost}` : `${ip} daddr @${NODEPORT_IPS}`;
  if (!matchAllNodePorts) {
    sets.set(NODEPORT_IPS, { name: NODEPORT_IPS, type: addr, comment: 'IPs that accept NodePort traffic', elements: [...config.nodePortAddresses] });
  }
  chain(SERVICES, [`${ip} daddr . meta l4proto . th dport vmap @${SERVICE_IPS}`, `${nodePortMatch} meta l4proto . th dport vmap @${SERVICE_NODEPORTS}`]);
  chain(ENDPOINTS_CHECK, [
    `${ip} daddr . meta l4proto . th dport vmap @${NO_ENDPOINT_SERVICES}`,
    `${nodePortMatch} meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS}`,
  ]);
  chain(REJECT_CHAIN, ['reject']);
  chain(FIREWALL_CHECK, [`${ip} daddr . meta l4proto . th dport vmap @${FIREWALL_IPS}`]);
  chain(CLUSTER_IPS_CHECK, [`${ip} daddr @${CLUSTER_IPS} reject comment "reject traffic to ports of cluster IPs that no service port has"`]);

  const problems: ProblemsByService = new Map();
  const claims = new DestinationClaims(problems);
  const noLocalEndpoints: NoLocalEndpoints = { internal: 0, external: 0 };

  for (const { info, endpoints } of planPorts(state)) {
    const protocol = info.protocol.toLowerCase();
    const nameBase = servicePortNameBase(info);
    const clusterChain = `service-${nameBase}`;
    const localChain = `local-${nameBase}`;
    const externalChain = `external-${nameBase}`;
    const firewallChain = `firewall-${nameBase}`;
    const dest = (address: string, port: number) => `${address} . ${protocol} . ${port}`;
    clusterIps.add(info.clusterIP);

    const usesCluster = endpoints.cluster.length > 0 && usesClusterEndpoints(info);
    const usesLocal = endpoints.local.length > 0 && usesLocalEndpoints(info);
    const internalChain = info.internalPolicyLocal ? localChain : clusterChain;
    const hasInternal = endpoints.hasAny && (!info.internalPolicyLocal || endpoints.local.length > 0);
    const externalPolicyChain = info.externalPolicyLocal ? localChain : clusterChain;
    const hasExternal = endpoints.hasAny && (!info.externalPolicyLocal || endpoints.local.length > 0);
    const usesExternalChain = endpoints.hasAny && externallyAccessible(info);

    let internalFilter = '';
    let externalFilter = '';
    if (!endpoints.hasAny) {
      internalFilter = externalFilter = `goto ${REJECT_CHAIN}`;
    } else {
      if (!hasInternal) {
        internalFilter = 'drop';
        noLocalEndpoints.internal++;
      }
      if (!hasExternal) {
        externalFilter = 'drop';
        noLocalEndpoints.external++;
      }
    }

    // The cluster IP.
    const clusterDest = dest(info.clusterIP, info.port);
    if (claims.claim(clusterDest, info, `cluster IP ${info.clusterIP} port ${info.port}/${info.protocol}`)) {
      if (hasInternal) serviceIps.set(clusterDest, `goto ${internalChain}`);
      else noEndpointServices.set(clusterDest, internalFilter);
    }
    // External IPs and load balancer IPs.
    const external = [...info.externalIPs.map((a) => ['external IP', a]), ...info.loadBalancerVIPs.map((a) => ['load balancer IP', a])];
    const usesFirewall = info.loadBalancerVIPs.length > 0 && info.loadBalancerSourceRanges.length > 0;
    for (const [what, address] of external) {
      const d = dest(address, info.port);
      if (!claims.claim(d, info, `${what} ${address} port ${info.port}/${info.protocol}`)) continue;
      if (endpoints.hasAny) serviceIps.set(d, `goto ${externalChain}`);
      if (!hasExternal) noEndpointServices.set(d, externalFilter);
      if (usesFirewall && what === 'load balancer IP') firewallIps.set(d, `goto ${firewallChain}`);
    }
    if (usesFirewall) {
      const sources = [...info.loadBalancerSourceRanges];
      // A VIP configured on the node loops the node's own requests back with the VIP as source.
      if (config.nodeIP && info.loadBalancerSourceRanges.some((range) => cidrContains(range, config.nodeIP!))) sources.push(...info.loadBalancerVIPs);
      chain(firewallChain, [`${ip} saddr != { ${sources.join(', ')} } drop`]);
    }
    // The node port.
    if (info.nodePort !== 0) {
      const d = `${protocol} . ${info.nodePort}`;
      if (claims.claim(d, info, `node port ${info.nodePort}/${info.protocol}`)) {
        if (endpoints.hasAny) serviceNodePorts.set(d, `goto ${externalChain}`);
        if (!hasExternal) noEndpointNodePorts.set(d, externalFilter);
      }
    }

    // The policy chains: masquerade first, then affinity, then the random pick.
    const policyRules = new Map<string, string[]>();
    if (usesCluster) policyRules.set(clusterChain, []);
    if (usesLocal) policyRules.set(localChain, []);
    if (hasInternal) {
      const rules = policyRules.get(internalChain);
      const match = `${ip} daddr ${info.clusterIP} ${protocol} dport ${info.port}`;
      if (config.masqueradeAll) rules?.push(`${match} jump ${MARK_MASQ}`);
      // Traffic from outside the pods' network to a cluster IP may have to leave the node again:
      // masquerade it so that the replies come back here to be un-DNATed.
      else if (local) rules?.push(`${match} ${local.ifNotLocal} jump ${MARK_MASQ}`);
    }
    if (usesExternalChain) {
      const rules: string[] = [];
      if (!info.externalPolicyLocal) {
        // The endpoint may be on another node: masquerade so that replies come back through here.
        rules.push(`jump ${MARK_MASQ}`);
      } else {
        // Pods reaching an external address of a Service are not "external": as if they went out to
        // a load balancer and back, they get Cluster policy; so does the node itself, masqueraded
        // (its source would be the external address, a local one).
        if (local && usesCluster) rules.push(`${local.ifLocal} goto ${clusterChain} comment "short-circuit pod traffic"`);
        rules.push(`fib saddr type local jump ${MARK_MASQ} comment "masquerade local traffic"`);
        if (usesCluster) rules.push(`fib saddr type local goto ${clusterChain} comment "short-circuit local traffic"`);
      }
      if (hasExternal) rules.push(`goto ${externalPolicyChain}`);
      chain(externalChain, rules);
    }

    const affinity = info.affinityTimeoutSeconds;
    // The timeout is part of the name: a set's timeout cannot change while rules use it.
    const affinitySet = (ep: EndpointInfo) => `affinity-${affinity}-${endpointNameBase(info, ep)}`;
    for (const [policyChain, rules] of policyRules) {
      const eps = policyChain === localChain ? endpoints.local : endpoints.cluster;
      if (affinity !== undefined) for (const ep of eps) rules.push(`${ip} saddr @${affinitySet(ep)} goto endpoint-${endpointNameBase(info, ep)}`);
      const picks = eps.map((ep, i) => `${i} : goto endpoint-${endpointNameBase(info, ep)}`).join(', ');
      rules.push(`numgen random mod ${eps.length} vmap { ${picks} }`);
      chain(policyChain, rules);
    }

    // One chain per endpoint: hairpin masquerade, affinity, DNAT.
    const endpointChains = new Map<string, EndpointInfo>();
    for (const [policyChain] of policyRules) {
      for (const ep of policyChain === localChain ? endpoints.local : endpoints.cluster) endpointChains.set(ep.key, ep);
    }
    for (const ep of endpointChains.values()) {
      const rules = [`${ip} saddr ${ep.ip} jump ${MARK_MASQ}`];
      if (affinity !== undefined) {
        const set = affinitySet(ep);
        sets.set(set, { name: set, type: addr, dynamicTimeoutSeconds: affinity, elements: [] });
        rules.push(`update @${set} { ${ip} saddr }`);
      }
      rules.push(`meta l4proto ${protocol} dnat to ${ip === 'ip' ? ep.ip : `[${ep.ip}]`}:${ep.port}`);
      chain(`endpoint-${endpointNameBase(info, ep)}`, rules);
    }
  }

  sets.set(CLUSTER_IPS, { name: CLUSTER_IPS, type: addr, comment: 'active cluster IPs', elements: [...clusterIps].sort() });
  const table: NftTable = { family: nftFamily(config), name: tableName, comment: 'rules for svc-proxy', chains, sets, maps };
  return { table, noLocalEndpoints, problems };
}

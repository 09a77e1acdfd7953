import { nameHash } from '../model/chain-names';
import type { EndpointInfo } from '../model/endpoints';
import { cidrContains, hostPort } from '../model/ip';
import { DestinationClaims, planPorts, type NoLocalEndpoints, type ProblemsByService, type ProxyRuleConfig, type ProxyState } from '../model/proxy-state';
import { externallyAccessible, usesClusterEndpoints, usesLocalEndpoints, type ServicePortInfo } from '../model/service-port';

export type IptablesTableName = 'filter' | 'nat';

/** Our chains of one table, each with its rules (the arguments after `-A CHAIN`), in order. */
export type IptablesChains = Map<string, string[]>;

export interface IptablesRuleSet {
  readonly filter: IptablesChains;
  readonly nat: IptablesChains;
}

/** Every chain name of this proxy starts so (kube-proxy's are KUBE-): its chains never mix with another's. */
export const CHAIN_PREFIX = 'SVCP-';

export const SERVICES = `${CHAIN_PREFIX}SERVICES`;
export const EXTERNAL_SERVICES = `${CHAIN_PREFIX}EXTERNAL-SERVICES`;
export const NODEPORTS = `${CHAIN_PREFIX}NODEPORTS`;
export const POSTROUTING = `${CHAIN_PREFIX}POSTROUTING`;
export const MARK_MASQ = `${CHAIN_PREFIX}MARK-MASQ`;
export const FORWARD = `${CHAIN_PREFIX}FORWARD`;
export const FIREWALL = `${CHAIN_PREFIX}FIREWALL`;

/** The jumps from the built-in chains into ours, kept by `-C`/`-I` (never by restoring a built-in chain). */
export interface JumpRule {
  readonly table: IptablesTableName;
  readonly chain: string;
  /** The rule's arguments, without `-A CHAIN`. */
  readonly rule: string;
}

export const JUMPS: readonly JumpRule[] = [
  { table: 'filter', chain: 'INPUT', rule: `-m conntrack --ctstate NEW -m comment --comment svc-proxy-external-services -j ${EXTERNAL_SERVICES}` },
  { table: 'filter', chain: 'FORWARD', rule: `-m conntrack --ctstate NEW -m comment --comment svc-proxy-external-services -j ${EXTERNAL_SERVICES}` },
  { table: 'filter', chain: 'FORWARD', rule: `-m conntrack --ctstate NEW -m comment --comment svc-proxy-services -j ${SERVICES}` },
  { table: 'filter', chain: 'OUTPUT', rule: `-m conntrack --ctstate NEW -m comment --comment svc-proxy-services -j ${SERVICES}` },
  { table: 'filter', chain: 'INPUT', rule: `-m conntrack --ctstate NEW -m comment --comment svc-proxy-firewall -j ${FIREWALL}` },
  { table: 'filter', chain: 'FORWARD', rule: `-m conntrack --ctstate NEW -m comment --comment svc-proxy-firewall -j ${FIREWALL}` },
  { table: 'filter', chain: 'OUTPUT', rule: `-m conntrack --ctstate NEW -m comment --comment svc-proxy-firewall -j ${FIREWALL}` },
  { table: 'filter', chain: 'FORWARD', rule: `-m comment --comment svc-proxy-forward -j ${FORWARD}` },
  { table: 'nat', chain: 'PREROUTING', rule: `-m comment --comment svc-proxy-portals -j ${SERVICES}` },
  { table: 'nat', chain: 'OUTPUT', rule: `-m comment --comment svc-proxy-portals -j ${SERVICES}` },
  { table: 'nat', chain: 'POSTROUTING', rule: `-m comment --comment svc-proxy-postrouting -j ${POSTROUTING}` },
];

/** `SVCP-SVC-XXXXXXXXXXXXXXXX`: a hash keeps names within iptables' 28 characters. */
function portChain(prefix: string, info: ServicePortInfo): string {
  return `${CHAIN_PREFIX}${prefix}-${nameHash(`${info.id}${info.protocol.toLowerCase()}`, 16)}`;
}

function endpointChain(info: ServicePortInfo, ep: EndpointInfo): string {
  return `${CHAIN_PREFIX}SEP-${nameHash(`${info.id}${info.protocol.toLowerCase()}${ep.key}`, 16)}`;
}

function comment(text: string): string {
  return `-m comment --comment "${text.replaceAll('"', "'")}"`;
}

function localMatch(config: ProxyRuleConfig, negate: boolean): string | undefined {
  const local = config.localTraffic;
  const not = negate ? '! ' : '';
  switch (local.kind) {
    case 'cidr':
      // iptables takes one source range per rule; kube-proxy's detector takes one CIDR per family.
      return local.cidrs.length ? `${not}-s ${local.cidrs[0]}` : undefined;
    case 'interface':
      return `${not}-i ${local.name}`;
    case 'interface-prefix':
      return `${not}-i ${local.prefix}+`;
    default:
      return undefined;
  }
}

export interface IptablesRulesResult {
  readonly rules: IptablesRuleSet;
  readonly noLocalEndpoints: NoLocalEndpoints;
  readonly problems: ProblemsByService;
}

/**
 * The chains of kube-proxy's iptables mode, under this proxy's prefix: nat `SERVICES` matches each
 * destination and jumps to a chain per service port (`SVC` for Cluster policy, `SVL` for Local,
 * `EXT` for traffic from outside), which picks an endpoint chain (`SEP`) with `statistic` (each in
 * turn with probability 1/remaining) after any `recent` affinity; filter chains reject traffic to
 * ports with no endpoint and drop what load balancer source ranges keep out.
 */
export function iptablesRules(config: ProxyRuleConfig, state: ProxyState, localhostNodePorts: boolean): IptablesRulesResult {
  const mark = `0x${config.masqueradeMark.toString(16)}`;
  const nat: IptablesChains = new Map();
  const filter: IptablesChains = new Map();
  const add = (table: IptablesChains, chain: string, rule: string) => {
    const rules = table.get(chain);
    if (rules) rules.push(rule);
    else table.set(chain, [rule]);
  };
  for (const chain of [SERVICES, EXTERNAL_SERVICES, FORWARD, FIREWALL]) filter.set(chain, []);
  for (const chain of [SERVICES, NODEPORTS, POSTROUTING, MARK_MASQ]) nat.set(chain, []);

  add(nat, MARK_MASQ, `-j MARK --or-mark ${mark}`);
  add(nat, POSTROUTING, `-m mark ! --mark ${mark}/${mark} -j RETURN`);
  add(nat, POSTROUTING, `-j MARK --xor-mark ${mark}`);
  add(nat, POSTROUTING, `${comment('service traffic requiring SNAT')} -j MASQUERADE --random-fully`);
  // Service traffic must pass a FORWARD policy of DROP.
  add(filter, FORWARD, `${comment('forwarding rules for marked service traffic')} -m mark --mark ${mark}/${mark} -j ACCEPT`);
  add(filter, FORWARD, `${comment('forwarding conntrack rule')} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`);

  const problems: ProblemsByService = new Map();
  const claims = new DestinationClaims(problems);
  const noLocalEndpoints: NoLocalEndpoints = { internal: 0, external: 0 };
  const notLocal = localMatch(config, true);
  const isLocal = localMatch(config, false);
  const localNodePorts = config.family === 'IPv4' && localhostNodePorts && config.nodePortAddresses === 'all';

  for (const { info, endpoints } of planPorts(state)) {
    const p = info.protocol.toLowerCase();
    const svcChain = portChain('SVC', info);
    const svlChain = portChain('SVL', info);
    const extChain = portChain('EXT', info);
    const fwChain = portChain('FW', info);
    const proto = `-p ${p} -m ${p}`;

    const usesCluster = endpoints.cluster.length > 0 && usesClusterEndpoints(info);
    const usesLocal = endpoints.local.length > 0 && usesLocalEndpoints(info);
    const internalChain = info.internalPolicyLocal ? svlChain : svcChain;
    const hasInternal = endpoints.hasAny && (!info.internalPolicyLocal || endpoints.local.length > 0);
    const externalPolicyChain = info.externalPolicyLocal ? svlChain : svcChain;
    const hasExternal = endpoints.hasAny && (!info.externalPolicyLocal || endpoints.local.length > 0);
    const usesExternal = endpoints.hasAny && externallyAccessible(info);
    const verdict = (has: boolean) => (!endpoints.hasAny ? 'REJECT' : has ? undefined : 'DROP');
    if (endpoints.hasAny && !hasInternal) noLocalEndpoints.internal++;
    if (endpoints.hasAny && !hasExternal) noLocalEndpoints.external++;

    if (claims.claim(`${info.clusterIP} ${p} ${info.port}`, info, `cluster IP ${info.clusterIP} port ${info.port}/${info.protocol}`)) {
      if (hasInternal) add(nat, SERVICES, `${comment(`${info.id} cluster IP`)} ${proto} -d ${info.clusterIP} --dport ${info.port} -j ${internalChain}`);
      else add(filter, SERVICES, `${comment(`${info.id} has no endpoints`)} ${proto} -d ${info.clusterIP} --dport ${info.port} -j ${verdict(false)}`);
    }
    const usesFirewall = info.loadBalancerVIPs.length > 0 && info.loadBalancerSourceRanges.length > 0;
    const external = [...info.externalIPs.map((a) => ['external IP', a]), ...info.loadBalancerVIPs.map((a) => ['load balancer IP', a])];
    for (const [what, address] of external) {
      if (!claims.claim(`${address} ${p} ${info.port}`, info, `${what} ${address} port ${info.port}/${info.protocol}`)) continue;
      const target = usesFirewall && what === 'load balancer IP' ? fwChain : extChain;
      if (endpoints.hasAny) add(nat, SERVICES, `${comment(`${info.id} ${what}`)} ${proto} -d ${address} --dport ${info.port} -j ${target}`);
      if (!hasExternal)
        add(filter, EXTERNAL_SERVICES, `${comment(`${info.id} has no usable endpoints`)} ${proto} -d ${address} --dport ${info.port} -j ${verdict(false)}`);
      if (usesFirewall && what === 'load balancer IP') {
        // Not DNATed by the FW chain: not from an allowed source.
        add(filter, FIREWALL, `${comment(`${info.id} traffic not accepted by ${fwChain}`)} ${proto} -d ${address} --dport ${info.port} -j DROP`);
      }
    }
    if (usesFirewall && endpoints.hasAny) {
      const sources = [...info.loadBalancerSourceRanges];
      if (config.nodeIP && sources.some((range) => cidrContains(range, config.nodeIP!))) sources.push(...info.loadBalancerVIPs);
      nat.set(
        fwChain,
        sources.map((source) => `${comment(`${info.id} loadbalancer IP`)} -s ${source} -j ${extChain}`),
      );
    }
    if (info.nodePort !== 0 && claims.claim(`${p} ${info.nodePort}`, info, `node port ${info.nodePort}/${info.protocol}`)) {
      if (endpoints.hasAny) add(nat, NODEPORTS, `${comment(info.id)} ${proto} --dport ${info.nodePort} -j ${extChain}`);
      if (!hasExternal)
        add(
          filter,
          EXTERNAL_SERVICES,
          `${comment(`${info.id} has no usable endpoints`)} -m addrtype --dst-type LOCAL ${proto} --dport ${info.nodePort} -j ${verdict(false)}`,
        );
    }

    const policy = new Map<string, readonly EndpointInfo[]>();
    if (usesCluster) policy.set(svcChain, endpoints.cluster);
    if (usesLocal) policy.set(svlChain, endpoints.local);
    for (const chain of policy.keys()) nat.set(chain, []);
    if (hasInternal) {
      const match = `${comment(`${info.id} cluster IP`)} ${proto} -d ${info.clusterIP} --dport ${info.port}`;
      if (config.masqueradeAll) add(nat, internalChain, `${match} -j ${MARK_MASQ}`);
      else if (notLocal) add(nat, internalChain, `${match} ${notLocal} -j ${MARK_MASQ}`);
    }
    if (usesExternal) {
      nat.set(extChain, []);
      if (!info.externalPolicyLocal) add(nat, extChain, `${comment('masquerade traffic for external destinations')} -j ${MARK_MASQ}`);
      else {
        if (isLocal && usesCluster) add(nat, extChain, `${comment('pod traffic for external destinations')} ${isLocal} -j ${svcChain}`);
        add(nat, extChain, `${comment('masquerade LOCAL traffic for external destinations')} -m addrtype --src-type LOCAL -j ${MARK_MASQ}`);
        if (usesCluster) add(nat, extChain, `${comment('route LOCAL traffic for external destinations')} -m addrtype --src-type LOCAL -j ${svcChain}`);
      }
      if (hasExternal) add(nat, extChain, `-j ${externalPolicyChain}`);
    }

    const affinity = info.affinityTimeoutSeconds;
    const seps = new Map<string, EndpointInfo>();
    for (const [chain, eps] of policy) {
      if (affinity !== undefined) {
        for (const ep of eps)
          add(
            nat,
            chain,
            `${comment(`${info.id} -> ${ep.key}`)} -m recent --name ${endpointChain(info, ep)} --mask ${config.family === 'IPv4' ? '255.255.255.255' : 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'} --rsource --rcheck --seconds ${affinity} --reap -j ${endpointChain(info, ep)}`,
          );
      }
      eps.forEach((ep, i) => {
        const remaining = eps.length - i;
        const pick = remaining > 1 ? ` -m statistic --mode random --probability ${(1 / remaining).toFixed(10)}` : '';
        add(nat, chain, `${comment(`${info.id} -> ${ep.key}`)}${pick} -j ${endpointChain(info, ep)}`);
        seps.set(ep.key, ep);
      });
    }
    for (const ep of seps.values()) {
      const chain = endpointChain(info, ep);
      const recent =
        affinity !== undefined
          ? ` -m recent --name ${chain} --mask ${config.family === 'IPv4' ? '255.255.255.255' : 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'} --rsource --set`
          : '';
      nat.set(chain, [
        `${comment(info.id)} -s ${ep.ip} -j ${MARK_MASQ}`,
        `${comment(info.id)}${recent} ${proto} -j DNAT --to-destination ${hostPort(ep.ip, ep.port)}`,
      ]);
    }
  }

  // Node ports last, as kube-proxy: a node port must not shadow a cluster IP's port.
  if (config.nodePortAddresses === 'all') {
    if (localNodePorts)
      add(nat, SERVICES, `${comment('service nodeports; this must be the last rule in this chain')} -m addrtype --dst-type LOCAL -j ${NODEPORTS}`);
    else
      add(
        nat,
        SERVICES,
        `${comment('service nodeports; this must be the last rule in this chain')} ! -d ${config.family === 'IPv4' ? '127.0.0.0/8' : '::1/128'} -m addrtype --dst-type LOCAL -j ${NODEPORTS}`,
      );
  } else {
    for (const ip of config.nodePortAddresses)
      add(nat, SERVICES, `${comment('service nodeports; this must be the last rules in this chain')} -d ${ip} -j ${NODEPORTS}`);
  }
  if (localNodePorts) {
    // With route_localnet on, 127.0.0.1 could be reached from outside: refuse what did not start here.
    add(
      filter,
      FIREWALL,
      `${comment('block incoming localnet connections')} -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
    );
  }
  return { rules: { filter, nat }, noLocalEndpoints, problems };
}

import { createHash } from 'node:crypto';
import type { Namespace, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort, Pod } from '@svc/api';
import { LabelQuery, type LabelSelector } from '@svc/machinery';
import type { IpFamily } from '../model/ip';
import { ipFamilyOf } from '../model/ip';
import type { NftChain, NftMap, NftTable } from '../nftables/nft-table';

/** The table NetworkPolicies are enforced in, beside the proxy's own: `ip svc-netpol`, `ip6 svc-netpol`. */
export const NETPOL_TABLE_NAME = 'svc-netpol';

/** After DNAT (-100), so that traffic to a Service is judged by the pod it reaches and that pod's port. */
const FILTER_PRIORITY = 0;

/** What the rules are computed from: the cluster's policies, pods and namespaces, and which pods are this node's. */
export interface PolicyInput {
  policies: readonly NetworkPolicy[];
  pods: readonly Pod[];
  namespaces: readonly Namespace[];
  nodeName: string;
}

interface PodView {
  key: string;
  namespace: string;
  labels: Record<string, string>;
  ips: string[];
  pod: Pod;
}

function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  try {
    return LabelQuery.fromLabelSelector(selector ?? {}).matches(labels);
  } catch {
    // A selector the API refused to store; treated as selecting nothing.
    return false;
  }
}

/** A pod's addresses of `family`; host-network pods and pods without an address have none of their own. */
function podIps(pod: Pod, family: IpFamily): string[] {
  if (pod.spec?.hostNetwork) return [];
  const all = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => typeof ip === 'string');
  if (all.length === 0 && pod.status?.podIP) all.push(pod.status.podIP);
  return all.filter((ip) => ipFamilyOf(ip) === family);
}

function running(pod: Pod): boolean {
  return pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined;
}

/** The container port of `name` and `protocol` of a pod, for a policy's named port. */
function namedPort(pod: Pod, name: string, protocol: string): number | undefined {
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      if (port.name === name && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
    }
  }
  return undefined;
}

/** `meta l4proto tcp th dport 80-90`, or undefined when a named port cannot be resolved on `pod`. */
function portMatch(port: NetworkPolicyPort, pod: Pod | undefined): string | undefined {
  const protocol = (port.protocol ?? 'TCP').toLowerCase();
  if (port.port === undefined) return `meta l4proto ${protocol}`;
  let number: number | undefined;
  if (typeof port.port === 'number') number = port.port;
  else number = pod ? namedPort(pod, port.port, port.protocol ?? 'TCP') : undefined;
  if (number === undefined) return undefined;
  const range = typeof port.port === 'number' && port.endPort !== undefined && port.endPort > number ? `${number}-${port.endPort}` : String(number);
  return `meta l4proto ${protocol} th dport ${range}`;
}

/**
 * Builds the NetworkPolicy table of one family for this node's pods, as Kubernetes' NetworkPolicy
 * semantics ask: a pod that an Ingress (Egress) policy selects is isolated in that direction, and only
 * traffic some such policy's rule allows gets in (out); rules of several policies add up. Each
 * isolated pod has a chain per direction that returns for allowed traffic and drops the rest; the
 * forward hook jumps to them by address (egress of the source, then ingress of the destination, so that
 * traffic between two local pods must be allowed both ways). Replies of allowed connections pass
 * (conntrack), and traffic between a pod and its own node (a local address) is always allowed.
 * A peer is a set of pod addresses (pod and namespace selectors, evaluated now) or a CIDR less its
 * exceptions; a named port is resolved on each destination pod.
 */
export function networkPolicyTable(family: IpFamily, input: PolicyInput, tableName = NETPOL_TABLE_NAME): NftTable {
  const ip = family === 'IPv4' ? 'ip' : 'ip6';
  const addr = family === 'IPv4' ? 'ipv4_addr' : 'ipv6_addr';
  const namespaceLabels = new Map<string, Record<string, string>>();
  for (const ns of input.namespaces) {
    const name = ns.metadata?.name ?? '';
    namespaceLabels.set(name, { 'kubernetes.io/metadata.name': name, ...(ns.metadata?.labels ?? {}) });
  }
  const pods: PodView[] = input.pods
    .filter(running)
    .map((pod) => ({
      key: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
      namespace: pod.metadata?.namespace ?? '',
      labels: pod.metadata?.labels ?? {},
      ips: podIps(pod, family),
      pod,
    }))
    .filter((p) => p.ips.length > 0);
  const local = pods.filter((p) => p.pod.spec?.nodeName === input.nodeName);

  /** The pods a peer of a policy in `namespace` selects (undefined for an ipBlock peer). */
  const peerPods = (peer: NetworkPolicyPeer, namespace: string): PodView[] | undefined => {
    if (peer.ipBlock !== undefined) return undefined;
    return pods.filter((p) => {
      if (peer.namespaceSelector !== undefined) {
        if (!selectorMatches(peer.namespaceSelector, namespaceLabels.get(p.namespace) ?? { 'kubernetes.io/metadata.name': p.namespace })) return false;
      } else if (p.namespace !== namespace) return false;
      return peer.podSelector === undefined || selectorMatches(peer.podSelector, p.labels);
    });
  };

  /** The `saddr`/`daddr` match of an ipBlock peer, or undefined when it is of the other family. */
  const blockMatch = (peer: NetworkPolicyPeer, direction: 'saddr' | 'daddr'): string | undefined => {
    const block = peer.ipBlock!;
    if (ipFamilyOf(block.cidr.slice(0, block.cidr.indexOf('/'))) !== family) return undefined;
    const except = (block.except ?? []).filter((c) => ipFamilyOf(c.slice(0, c.indexOf('/'))) === family);
    return `${ip} ${direction} ${block.cidr}${except.length ? ` ${ip} ${direction} != { ${except.join(', ')} }` : ''}`;
  };

  /**
   * The rules of one policy rule (peers × ports) that return (allow). `direction` is the address of the
   * peer (saddr for ingress, daddr for egress); `self` is the isolated pod (for ingress named ports).
   */
  const allowRules = (
    peers: readonly NetworkPolicyPeer[] | undefined,
    ports: readonly NetworkPolicyPort[] | undefined,
    namespace: string,
    direction: 'saddr' | 'daddr',
    self: PodView,
  ): string[] => {
    const rules: string[] = [];
    const portList = ports && ports.length > 0 ? ports : [undefined];
    const peerList = peers && peers.length > 0 ? peers : [undefined];
    for (const peer of peerList) {
      for (const port of portList) {
        if (peer === undefined || peer.ipBlock !== undefined) {
          const peerMatch = peer === undefined ? '' : blockMatch(peer, direction);
          if (peer !== undefined && peerMatch === undefined) continue;
          // A named port of an egress rule is the destination's: unknown for addresses outside the cluster.
          const portText = port === undefined ? '' : portMatch(port, direction === 'saddr' ? self.pod : undefined);
          if (portText === undefined) continue;
          rules.push([peerMatch, portText, 'return'].filter(Boolean).join(' '));
          continue;
        }
        const selected = peerPods(peer, namespace) ?? [];
        if (port !== undefined && typeof port.port === 'string' && direction === 'daddr') {
          // Resolved on each destination pod, whose container ports name it.
          for (const p of selected) {
            const portText = portMatch(port, p.pod);
            if (portText !== undefined) rules.push(`${ip} daddr { ${p.ips.join(', ')} } ${portText} return`);
          }
          continue;
        }
        const addresses = [...new Set(selected.flatMap((p) => p.ips))].sort();
        if (addresses.length === 0) continue;
        const portText = port === undefined ? '' : portMatch(port, self.pod);
        if (portText === undefined) continue;
        rules.push(`${ip} ${direction} { ${addresses.join(', ')} }${portText ? ` ${portText}` : ''} return`);
      }
    }
    return rules;
  };

  const chains = new Map<string, NftChain>();
  const ingressPods = new Map<string, string>();
  const egressPods = new Map<string, string>();
  for (const self of local) {
    // Named by the pod, so that a chain keeps its name while other pods come and go.
    const id = createHash('sha256').update(self.key).digest('hex').slice(0, 16);
    const selecting = input.policies.filter(
      (policy) => policy.metadata?.namespace === self.namespace && selectorMatches(policy.spec?.podSelector, self.labels),
    );
    const types = (policy: NetworkPolicy) => policy.spec?.policyTypes ?? (policy.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress']);
    const ingress = selecting.filter((p) => types(p).includes('Ingress'));
    const egress = selecting.filter((p) => types(p).includes('Egress'));
    if (ingress.length > 0) {
      const name = `ingress-${id}`;
      const rules = [`fib saddr type local return comment "from its own node"`];
      for (const policy of ingress) {
        for (const rule of policy.spec?.ingress ?? []) rules.push(...allowRules(rule.from, rule.ports, self.namespace, 'saddr', self));
      }
      rules.push(`drop comment "${self.key}: ingress not allowed"`);
      chains.set(name, { name, rules });
      for (const address of self.ips) ingressPods.set(address, `jump ${name}`);
    }
    if (egress.length > 0) {
      const name = `egress-${id}`;
      const rules = [`fib daddr type local return comment "to its own node"`];
      for (const policy of egress) {
        for (const rule of policy.spec?.egress ?? []) rules.push(...allowRules(rule.to, rule.ports, self.namespace, 'daddr', self));
      }
      rules.push(`drop comment "${self.key}: egress not allowed"`);
      chains.set(name, { name, rules });
      for (const address of self.ips) egressPods.set(address, `jump ${name}`);
    }
  }
  const maps = new Map<string, NftMap>([
    ['egress-pods', { name: 'egress-pods', type: `${addr} : verdict`, comment: 'pods isolated for egress', elements: egressPods }],
    ['ingress-pods', { name: 'ingress-pods', type: `${addr} : verdict`, comment: 'pods isolated for ingress', elements: ingressPods }],
  ]);
  chains.set('forward', {
    name: 'forward',
    hook: { type: 'filter', hook: 'forward', priority: FILTER_PRIORITY },
    rules: ['ct state established,related accept', `${ip} saddr vmap @egress-pods`, `${ip} daddr vmap @ingress-pods`],
  });
  return { family: family === 'IPv4' ? 'ip' : 'ip6', name: tableName, comment: 'NetworkPolicies of svc-proxy', chains, sets: new Map(), maps };
}

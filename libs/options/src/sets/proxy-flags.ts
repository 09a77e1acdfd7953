import { isIP } from 'node:net';
import { bool } from '../flags/bool';
import { parseCidr, parseDualStackCidrs } from '../flags/cidr';
import { duration } from '../flags/duration';
import { int32 } from '../flags/int';
import { oneOf, string } from '../flags/string';
import { strings } from '../flags/strings';
import { flag, type CheckResult } from '../flag-set/flag';
import { defineFlagSet, flagTable, helpFlag, versionFlag, type OptionsOf, type Rule } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import type { RefusedFlag } from '../flag-set/refused-flags';
import { atLeast, between, durationAbove, ipAddressOrBlank } from './checks';
import { clientFlags, featureGatesFlag, LOG_FLAGS } from './common-flags';

const PROGRAM = 'svc-proxy';

/** `ip:port` (`[v6]:port` for IPv6), as kube-proxy's `--healthz-bind-address`; empty turns the server off. */
export function parseHostPort(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2] ?? '';
  const port = Number(match?.[3]);
  if (!match || !isIP(host) || !(port >= 0 && port <= 65535)) throw new Error(`${JSON.stringify(text)} is not ip:port`);
  return { host, port };
}

const hostPortOrEmpty = (value: string): CheckResult => {
  if (value === '') return undefined;
  try {
    parseHostPort(value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

/** Each entry a CIDR, or the single word `primary` alone. */
const nodePortAddresses = (values: readonly string[]): CheckResult => {
  if (values.includes('primary')) return values.length === 1 ? undefined : { value: 'primary', reason: 'primary must be the only entry' };
  for (const value of values) {
    try {
      parseCidr(value);
    } catch {
      return { value, reason: 'must be a valid CIDR, or the single word primary' };
    }
  }
  return undefined;
};

const clusterCidrs = (value: string): CheckResult => {
  if (value === '') return undefined;
  try {
    parseDualStackCidrs(value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

export const PROXY_MODES = ['', 'nftables', 'iptables', 'ipvs', 'kernelspace'] as const;
export const DETECT_LOCAL_MODES = ['ClusterCIDR', 'NodeCIDR', 'BridgeInterface', 'InterfaceNamePrefix'] as const;

/**
 * The service proxy's flag table: kube-proxy's flags (Kubernetes 1.32) where they apply, with this
 * product's connection flags (`--svcconfig`, `--svc-api-*`). kube-proxy's configuration file is not
 * read: every setting is a flag.
 */
export const PROXY_FLAGS = flagTable({
  program: PROGRAM,
  description:
    'The service proxy runs on every node: it watches Services and EndpointSlices and programs the kernel (nftables,\n' +
    'or iptables where nftables is absent) so that traffic to a Service reaches its endpoints: cluster IPs, node\n' +
    'ports, external and load balancer IPs, session affinity and traffic policies, as kube-proxy does.',
  groups: [
    {
      title: 'Generic',
      flags: [
        helpFlag(PROGRAM),
        versionFlag(),
        flag({ name: 'cleanup', type: bool, help: 'remove the rules this proxy made (its nftables table, its iptables chains) and exit' }),
        flag({ name: 'config', type: string, help: 'configuration file; not read here: every setting is a flag' }),
        flag({ name: 'write-config-to', type: string, help: 'write the default configuration to this file and exit; not supported here' }),
        flag({ name: 'init-only', type: bool, help: 'do the initialization that needs full privileges, then exit; not supported here' }),
        featureGatesFlag({}),
        flag({ name: 'profiling', type: bool, default: true, help: 'serve profiles on /debug/pprof/ of the metrics server' }),
        flag({
          name: 'oom-score-adj',
          type: int32,
          default: -999,
          help: 'the oom_score_adj of this process, in [-1000, 1000]; a value the process may not set is reported and left',
          check: between(-1000, 1000),
        }),
      ],
    },
    {
      title: 'Node',
      flags: [
        flag({
          name: 'hostname-override',
          type: string,
          help: "the name of this node's Node, which decides which endpoints are local; the host name when empty",
        }),
        flag({
          name: 'bind-address',
          type: string,
          default: '0.0.0.0',
          help: "the node's primary IP (a historical name: nothing binds to it); unspecified: the Node's first InternalIP, else its ExternalIP",
          check: ipAddressOrBlank,
        }),
        flag({
          name: 'healthz-bind-address',
          type: string,
          default: '0.0.0.0:10256',
          help: 'ip:port of /healthz and /livez (plain HTTP); empty turns them off',
          check: hostPortOrEmpty,
        }),
        flag({
          name: 'metrics-bind-address',
          type: string,
          default: '127.0.0.1:10249',
          help: 'ip:port of /metrics (plain HTTP); empty turns it off',
          check: hostPortOrEmpty,
        }),
        flag({
          name: 'bind-address-hard-fail',
          type: bool,
          help: 'exit when the health or metrics address cannot be bound, instead of going on without it',
        }),
      ],
    },
    {
      title: 'Proxy',
      flags: [
        flag({
          name: 'proxy-mode',
          type: oneOf(PROXY_MODES),
          default: '',
          help: 'nftables or iptables; empty: nftables where the nft command and the kernel support it, else iptables',
        }),
        flag({
          name: 'cluster-cidr',
          type: string,
          default: '',
          help: 'the pods\' range (an IPv4 and an IPv6 CIDR for dual stack): with --detect-local-mode=ClusterCIDR, traffic from it is "local" and not masqueraded on its way to a cluster IP',
          check: clusterCidrs,
        }),
        flag({
          name: 'detect-local-mode',
          type: oneOf(DETECT_LOCAL_MODES),
          default: 'ClusterCIDR',
          help: "how pod traffic is told apart: ClusterCIDR (--cluster-cidr), NodeCIDR (the Node's spec.podCIDRs), BridgeInterface (--pod-bridge-interface) or InterfaceNamePrefix (--pod-interface-name-prefix)",
        }),
        flag({ name: 'pod-bridge-interface', type: string, help: 'with --detect-local-mode=BridgeInterface: traffic arriving on this bridge is local' }),
        flag({
          name: 'pod-interface-name-prefix',
          type: string,
          help: 'with --detect-local-mode=InterfaceNamePrefix: traffic arriving on interfaces of this prefix is local',
        }),
        flag({
          name: 'nodeport-addresses',
          type: strings,
          help: "the node addresses NodePorts answer on: CIDRs that contain them, or primary (the node's primary IPs); empty: primary in nftables mode, every local address in iptables mode",
          check: nodePortAddresses,
        }),
        flag({ name: 'masquerade-all', type: bool, help: 'masquerade (SNAT) all traffic sent to cluster IPs' }),
        flag({
          name: 'iptables-masquerade-bit',
          type: int32,
          default: 14,
          help: 'the bit of the packet mark that marks packets to masquerade, in [0, 31] (both modes)',
          check: between(0, 31),
        }),
        flag({
          name: 'iptables-sync-period',
          type: duration,
          default: 30_000,
          help: 'the longest time between two syncs of the rules, which also bounds how long a failed sync waits to be retried (both modes)',
          check: durationAbove(0),
        }),
        flag({
          name: 'iptables-min-sync-period',
          type: duration,
          default: 1_000,
          help: 'the shortest time between syncs after the first two of a burst; 0 syncs on every change (both modes)',
        }),
        flag({
          name: 'iptables-localhost-nodeports',
          type: bool,
          default: true,
          help: 'iptables mode: NodePorts also answer on 127.0.0.1 (sets route_localnet); nftables mode never serves them there',
        }),
        flag({
          name: 'config-sync-period',
          type: duration,
          default: 900_000,
          help: 'how often the informers resync from their caches',
          check: durationAbove(0),
        }),
      ],
    },
    {
      title: 'IPVS',
      flags: [
        flag({ name: 'ipvs-scheduler', type: string, help: 'IPVS scheduler; the ipvs mode is not implemented here' }),
        flag({ name: 'ipvs-sync-period', type: duration, default: 30_000, help: 'IPVS resync period; the ipvs mode is not implemented here' }),
        flag({ name: 'ipvs-min-sync-period', type: duration, help: 'IPVS minimum resync period; the ipvs mode is not implemented here' }),
        flag({ name: 'ipvs-exclude-cidrs', type: strings, help: 'CIDRs IPVS cleanup leaves alone; the ipvs mode is not implemented here' }),
        flag({ name: 'ipvs-strict-arp', type: bool, help: 'strict ARP for IPVS; the ipvs mode is not implemented here' }),
        flag({ name: 'ipvs-tcp-timeout', type: duration, help: 'IPVS TCP idle timeout; the ipvs mode is not implemented here' }),
        flag({ name: 'ipvs-tcpfin-timeout', type: duration, help: 'IPVS TCP FIN timeout; the ipvs mode is not implemented here' }),
        flag({ name: 'ipvs-udp-timeout', type: duration, help: 'IPVS UDP timeout; the ipvs mode is not implemented here' }),
      ],
    },
    {
      title: 'Conntrack',
      flags: [
        flag({
          name: 'conntrack-max-per-core',
          type: int32,
          default: 32768,
          help: 'connections tracked per CPU core (nf_conntrack_max); 0 leaves the limit and --conntrack-min alone',
          check: atLeast(0),
        }),
        flag({
          name: 'conntrack-min',
          type: int32,
          default: 131072,
          help: 'the least nf_conntrack_max, whatever the per-core figure gives',
          check: atLeast(0),
        }),
        flag({
          name: 'conntrack-tcp-timeout-established',
          type: duration,
          default: 86_400_000,
          help: 'idle timeout of established TCP connections; 0 leaves it',
        }),
        flag({ name: 'conntrack-tcp-timeout-close-wait', type: duration, default: 3_600_000, help: 'timeout of TCP connections in CLOSE_WAIT; 0 leaves it' }),
        flag({
          name: 'conntrack-tcp-be-liberal',
          type: bool,
          help: 'track TCP liberally (nf_conntrack_tcp_be_liberal=1): out-of-window packets are not marked invalid',
        }),
        flag({ name: 'conntrack-udp-timeout', type: duration, help: 'idle timeout of unreplied UDP flows; 0 leaves it' }),
        flag({ name: 'conntrack-udp-timeout-stream', type: duration, help: 'idle timeout of assured UDP flows; 0 leaves it' }),
      ],
    },
    { title: 'Client', flags: clientFlags(5, 10) },
    {
      title: 'Logs',
      flags: [
        ...LOG_FLAGS,
        flag({
          name: 'show-hidden-metrics-for-version',
          type: string,
          help: '`<major>.<minor>` of the previous release whose hidden metrics are shown (this proxy hides none)',
          check: (v: string) => (v === '' || /^\d+\.\d+$/.test(v) ? undefined : 'must be <major>.<minor>, for example 1.16'),
        }),
      ],
    },
  ],
});

/** The service proxy's parsed options; durations in milliseconds. */
export interface ProxyOptions extends OptionsOf<typeof PROXY_FLAGS> {}

type ProxyRule = Rule<ProxyOptions>;

const detectLocalNeeds: ProxyRule = (o) => {
  if (o.detectLocalMode === 'BridgeInterface' && !o.podBridgeInterface)
    return { flag: 'pod-bridge-interface', value: '', reason: 'must be set with --detect-local-mode=BridgeInterface' };
  if (o.detectLocalMode === 'InterfaceNamePrefix' && !o.podInterfaceNamePrefix)
    return { flag: 'pod-interface-name-prefix', value: '', reason: 'must be set with --detect-local-mode=InterfaceNamePrefix' };
  return undefined;
};

const minSyncPeriod: ProxyRule = (o) =>
  o.iptablesMinSyncPeriod < 0 ? { flag: 'iptables-min-sync-period', reason: 'must be greater than or equal to 0' } : undefined;

export const proxyFlagSet = defineFlagSet(PROXY_FLAGS, [detectLocalNeeds, minSyncPeriod]);

/** Parses the service proxy's argv (without node and script). Throws FlagError with a one-line message. */
export function parseProxyOptions(argv: readonly string[]): ParseOutcome<ProxyOptions> {
  return parseFlagSet(proxyFlagSet, argv);
}

const IPVS = 'this proxy has no ipvs mode (nftables and iptables only)';

/** Flags of kube-proxy this proxy accepts only at their default, each with the reason. */
export const PROXY_REFUSED_FLAGS: readonly RefusedFlag[] = [
  { flag: 'config', reason: 'no configuration file is read: give each setting as a flag' },
  { flag: 'write-config-to', reason: 'there is no configuration file to write: every setting is a flag' },
  { flag: 'init-only', reason: 'there is no separate privileged initialization step: run the proxy with the privileges it needs' },
  { flag: 'proxy-mode', reason: 'only the nftables and iptables modes are implemented', alsoAccepted: ['nftables', 'iptables'] },
  { flag: 'ipvs-scheduler', reason: IPVS },
  { flag: 'ipvs-sync-period', reason: IPVS },
  { flag: 'ipvs-min-sync-period', reason: IPVS },
  { flag: 'ipvs-exclude-cidrs', reason: IPVS },
  { flag: 'ipvs-strict-arp', reason: IPVS },
  { flag: 'ipvs-tcp-timeout', reason: IPVS },
  { flag: 'ipvs-tcpfin-timeout', reason: IPVS },
  { flag: 'ipvs-udp-timeout', reason: IPVS },
  { flag: 'vmodule', reason: 'is not supported by this process yet: verbosity is set for the whole process with --v' },
];

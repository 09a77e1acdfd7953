import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { IpFamily } from '../model/ip';
import type { KernelSupport } from '../model/service-port';

const CONNTRACK = '/proc/sys/net/netfilter';

/** What this network namespace's kernel can do for the proxy. */
export function kernelSupport(): KernelSupport & { families: IpFamily[] } {
  const families: IpFamily[] = ['IPv4'];
  const disabled = readSysctl('/proc/sys/net/ipv6/conf/all/disable_ipv6');
  if (existsSync('/proc/net/if_inet6') && disabled !== '1') families.push('IPv6');
  // NAT of SCTP needs its connection tracking; its timeouts are there exactly when it is.
  return { sctp: existsSync(`${CONNTRACK}/nf_conntrack_sctp_timeout_established`), families };
}

function readSysctl(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Sets a sysctl when it differs; returns a line saying what failed, or undefined. */
export function setSysctl(path: string, value: number): string | undefined {
  const current = readSysctl(path);
  if (current === undefined) return `${path} is not there`;
  if (current === String(value)) return undefined;
  try {
    writeFileSync(path, String(value));
    return undefined;
  } catch (error) {
    return `cannot set ${path} to ${value} (it stays ${current}): ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}

export interface ConntrackSettings {
  conntrackMaxPerCore: number;
  conntrackMin: number;
  conntrackTcpTimeoutEstablished: number;
  conntrackTcpTimeoutCloseWait: number;
  conntrackTcpBeLiberal?: boolean;
  conntrackUdpTimeout?: number;
  conntrackUdpTimeoutStream?: number;
}

/**
 * kube-proxy's connection tracking settings (`--conntrack-*`): the table size from the cores, and the
 * timeouts given (0 leaves one as it is). Returns a warning line per setting the kernel refused: a
 * proxy in a network namespace may not change the host-wide table size, and goes on without.
 */
export function applyConntrackSettings(settings: ConntrackSettings): string[] {
  const warnings: string[] = [];
  const set = (name: string, value: number) => {
    const problem = setSysctl(`${CONNTRACK}/${name}`, value);
    if (problem) warnings.push(problem);
  };
  if (settings.conntrackMaxPerCore > 0) set('nf_conntrack_max', Math.max(settings.conntrackMaxPerCore * cpus().length, settings.conntrackMin));
  const seconds = (ms: number | undefined) => Math.round((ms ?? 0) / 1000);
  if (seconds(settings.conntrackTcpTimeoutEstablished) > 0) set('nf_conntrack_tcp_timeout_established', seconds(settings.conntrackTcpTimeoutEstablished));
  if (seconds(settings.conntrackTcpTimeoutCloseWait) > 0) set('nf_conntrack_tcp_timeout_close_wait', seconds(settings.conntrackTcpTimeoutCloseWait));
  if (settings.conntrackTcpBeLiberal) set('nf_conntrack_tcp_be_liberal', 1);
  if (seconds(settings.conntrackUdpTimeout) > 0) set('nf_conntrack_udp_timeout', seconds(settings.conntrackUdpTimeout));
  if (seconds(settings.conntrackUdpTimeoutStream) > 0) set('nf_conntrack_udp_timeout_stream', seconds(settings.conntrackUdpTimeoutStream));
  return warnings;
}

/** Sets this process's oom_score_adj; returns a warning when the kernel refuses (no CAP_SYS_RESOURCE to lower it). */
export function applyOomScoreAdj(value: number): string | undefined {
  return setSysctl('/proc/self/oom_score_adj', value);
}

/**
 * Why pod traffic over a bridge may miss the rules, or undefined: without br_netfilter calling
 * iptables/nftables for bridged IPv4 (bridge-nf-call-iptables), a pod's packet to a Service whose
 * endpoint shares its bridge is bridged past the DNAT's reverse, as kube-proxy warns at start.
 */
export function bridgeNetfilterProblem(): string | undefined {
  const value = readSysctl('/proc/sys/net/bridge/bridge-nf-call-iptables');
  if (value === undefined)
    return 'the br_netfilter module is not loaded: traffic between pods on one bridge may bypass the Service rules ("modprobe br_netfilter")';
  if (value !== '1')
    return 'net.bridge.bridge-nf-call-iptables is 0: traffic between pods on one bridge may bypass the Service rules ("sysctl -w net.bridge.bridge-nf-call-iptables=1")';
  return undefined;
}

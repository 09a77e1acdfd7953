import { planPorts, type ProxyState } from '../model/proxy-state';
import { runCommand } from './run-command';

interface UdpPortSnapshot {
  readonly destinations: readonly string[];
  readonly nodePort: number;
  readonly endpoints: ReadonlySet<string>;
}

/** One `conntrack -D` invocation's arguments. */
export type ConntrackDeletion = readonly string[];

/** The UDP service ports of a state with where they are reached and the endpoint IPs they use. */
export function udpSnapshot(state: ProxyState): Map<string, UdpPortSnapshot> {
  const out = new Map<string, UdpPortSnapshot>();
  for (const { info, endpoints } of planPorts(state)) {
    if (info.protocol !== 'UDP') continue;
    out.set(info.id, {
      destinations: [info.clusterIP, ...info.externalIPs, ...info.loadBalancerVIPs].map((ip) => `${ip}:${info.port}`),
      nodePort: info.nodePort,
      endpoints: new Set(endpoints.reachable.map((ep) => ep.ip)),
    });
  }
  return out;
}

/**
 * The connection tracking entries to delete after a sync, as kube-proxy clears them: UDP has no
 * connection to close, so a client that keeps sending keeps its entry, and with it the endpoint (or
 * the rejection) chosen when it began. Entries towards an endpoint that went are deleted, and so are
 * the entries of a port that had no endpoint and now has one.
 */
export function staleUdpDeletions(before: ReadonlyMap<string, UdpPortSnapshot>, after: ReadonlyMap<string, UdpPortSnapshot>): ConntrackDeletion[] {
  const out: ConntrackDeletion[] = [];
  const split = (d: string) => [d.slice(0, d.lastIndexOf(':')), d.slice(d.lastIndexOf(':') + 1)];
  for (const [id, now] of after) {
    const was = before.get(id);
    if (was && was.endpoints.size === 0 && now.endpoints.size > 0) {
      for (const d of now.destinations) {
        const [ip, port] = split(d);
        out.push(['-p', 'udp', '--orig-dst', ip, '--orig-port-dst', port]);
      }
      if (now.nodePort) out.push(['-p', 'udp', '--orig-port-dst', String(now.nodePort)]);
    }
  }
  for (const [id, was] of before) {
    const now = after.get(id);
    for (const ip of was.endpoints) {
      if (now?.endpoints.has(ip)) continue;
      for (const d of was.destinations) {
        const [address, port] = split(d);
        out.push(['-p', 'udp', '--orig-dst', address, '--orig-port-dst', port, '--dst-nat', ip]);
      }
      if (was.nodePort) out.push(['-p', 'udp', '--orig-port-dst', String(was.nodePort), '--dst-nat', ip]);
    }
  }
  return out;
}

/** Runs the deletions with the `conntrack` command; "0 flow entries" is not a failure. Returns failures, one line each. */
export async function deleteFlows(conntrack: string, deletions: readonly ConntrackDeletion[], family: 'IPv4' | 'IPv6'): Promise<string[]> {
  const failures: string[] = [];
  for (const args of deletions) {
    const result = await runCommand(conntrack, ['-D', '-f', family === 'IPv4' ? 'ipv4' : 'ipv6', ...args]);
    if (result.code !== 0 && !/0 flow entries/.test(result.stderr)) failures.push(`conntrack -D ${args.join(' ')}: ${result.stderr.trim().split('\n')[0]}`);
  }
  return failures;
}

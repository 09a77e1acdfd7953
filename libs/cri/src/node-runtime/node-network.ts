import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { deleteLink } from './host-cleanup';

const exec = promisify(execFile);

async function ip(args: readonly string[]): Promise<void> {
  try {
    await exec('ip', args);
  } catch (error) {
    throw new Error(`ip ${args.join(' ')}: ${((error as { stderr?: string }).stderr ?? (error as Error).message).trim()}`);
  }
}

/** An IPv4 /N range: its first address as a number and its prefix length. */
function parseCidr(cidr: string): { base: number; bits: number } {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  const octets = match?.slice(1, 5).map(Number) ?? [];
  const bits = Number(match?.[5]);
  if (!match || octets.some((o) => o > 255) || bits < 8 || bits > 30) throw new Error(`${JSON.stringify(cidr)} is not an IPv4 range from /8 to /30`);
  const address = octets.reduce((sum, o) => sum * 256 + o, 0);
  const size = 2 ** (32 - bits);
  return { base: address - (address % size), bits };
}

function formatIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** A node in a network namespace of its own, attached to the node network. */
export interface NamespacedNode {
  /** The namespace's name (`ip netns`), and its path for nsenter. */
  netns: string;
  netnsPath: string;
  /** Its address on the node network: its InternalIP. */
  address: string;
}

export interface NodeNetwork {
  /** The host's bridge, holding the host's address on the node network. */
  bridge: string;
  /** The host's address: the API server advertises it, and the host's own node uses it as its InternalIP. */
  hostAddress: string;
  /**
   * Adds the n-th node (from 2; the host is the first) in a network namespace of its own: a veth to
   * the host's bridge with the n-th address, loopback up, a default route through the host, forwarding on.
   */
  addNode(n: number): Promise<NamespacedNode>;
  /** Makes the host route each node's pod CIDR to that node's address (flannel's host-gw), replacing stale routes. */
  routePodCidrs(routes: ReadonlyArray<{ podCIDR: string; address: string }>): Promise<void>;
  /** Deletes every namespace it added and the bridge (their routes go with them). */
  close(): Promise<void>;
}

export interface NodeNetworkOptions {
  /** Names of what it creates start with it: the bridge `<prefix>0`, veths `<prefix>v<n>`, namespaces `<prefix>-node<n>`. */
  prefix: string;
  /** The node network, e.g. `10.243.0.0/24`: the host takes the first address, node n the n-th. */
  cidr: string;
}

const PREFIX = /^[a-z][a-z0-9]{0,7}$/;

/**
 * The network between this machine's nodes: a bridge on the host with the host's address, and a
 * network namespace per added node, each with its own containerd and pod bridge inside. Routes carry
 * each node's pod CIDR to its address, so pods on different nodes reach each other by IP.
 */
export async function createNodeNetwork(options: NodeNetworkOptions): Promise<NodeNetwork> {
  if (!PREFIX.test(options.prefix)) throw new Error(`network prefix ${JSON.stringify(options.prefix)}: 1 to 8 lower-case letters and digits, from a letter`);
  const { base, bits } = parseCidr(options.cidr);
  const bridge = `${options.prefix}0`;
  const hostAddress = formatIp(base + 1);
  const added: NamespacedNode[] = [];
  const routed = new Map<string, string>();
  // What an earlier start that was killed left of the same names.
  await deleteLink(bridge);
  await ip(['link', 'add', bridge, 'type', 'bridge']);
  await ip(['addr', 'add', `${hostAddress}/${bits}`, 'dev', bridge]);
  await ip(['link', 'set', bridge, 'up']);

  const addNode = async (n: number): Promise<NamespacedNode> => {
    if (n < 2 || n + 1 >= 2 ** (32 - bits) - 1) throw new Error(`node ${n} does not fit in ${options.cidr}`);
    const netns = `${options.prefix}-node${n}`;
    const veth = `${options.prefix}v${n}`;
    const address = formatIp(base + n);
    await exec('ip', ['netns', 'delete', netns]).catch(() => undefined);
    await deleteLink(veth);
    await ip(['netns', 'add', netns]);
    const node = { netns, netnsPath: `/run/netns/${netns}`, address };
    added.push(node);
    await ip(['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
    await ip(['link', 'set', veth, 'master', bridge, 'up']);
    await ip(['-n', netns, 'link', 'set', 'lo', 'up']);
    await ip(['-n', netns, 'addr', 'add', `${address}/${bits}`, 'dev', 'eth0']);
    await ip(['-n', netns, 'link', 'set', 'eth0', 'up']);
    await ip(['-n', netns, 'route', 'add', 'default', 'via', hostAddress]);
    // /proc/sys/net belongs to the namespace of whoever writes it.
    await exec('nsenter', [`--net=${node.netnsPath}`, 'sh', '-c', 'echo 1 > /proc/sys/net/ipv4/ip_forward']);
    return node;
  };

  const routePodCidrs = async (routes: ReadonlyArray<{ podCIDR: string; address: string }>) => {
    for (const { podCIDR, address } of routes) {
      if (routed.get(podCIDR) === address) continue;
      await ip(['route', 'replace', podCIDR, 'via', address, 'dev', bridge]);
      routed.set(podCIDR, address);
    }
  };

  const close = async () => {
    for (const node of added.splice(0)) await exec('ip', ['netns', 'delete', node.netns]).catch(() => undefined);
    for (const n of [...routed.keys()]) await exec('ip', ['route', 'delete', n]).catch(() => undefined);
    routed.clear();
    await deleteLink(bridge);
  };
  return { bridge, hostAddress, addNode, routePodCidrs, close };
}

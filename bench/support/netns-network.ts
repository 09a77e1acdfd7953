import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * Nodes and pods played by network namespaces, for tests and benchmarks of Service routing without
 * containers: a
 * node is a namespace linked to the host by a veth pair (the host side is where an API server can
 * listen for it) with a bridge for its pods; a pod is a namespace with a veth end on that bridge and
 * a small TCP/UDP server (bench/support/netns-pod-agent.js) that answers with its name and the client
 * address it saw. Everything is named with the prefix given and removed by `destroy()`.
 */

// Plain JavaScript beside this file in the source tree (the compiled benchmark runs from dist/bench/support).
const AGENT = [join(__dirname, 'netns-pod-agent.js'), join(__dirname, '..', '..', '..', 'bench', 'support', 'netns-pod-agent.js')].find((f) => existsSync(f))!;
export const POD_PORT = 8080;

function ip(args: string[]): string {
  const result = spawnSync('ip', args, { encoding: 'utf8', timeout: 10_000 });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${(result.stderr || result.error?.message || '').trim()}`);
  return result.stdout;
}

function inNetns(netns: string, args: string[]): string {
  return ip(['netns', 'exec', netns, ...args]);
}

/** Why these tests cannot run here (not root, no `ip`), or undefined. */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  const probe = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined : `ip netns does not work here: ${(probe.stderr || probe.error?.message || '').trim()}`;
}

/** A third octet for 100.64.X.0/30 and 172.20.X.0/24 that no route of the host uses yet. */
function freeOctet(): number {
  const routes = ip(['-4', 'route', 'show', 'table', 'all']);
  for (let attempt = 0; attempt < 50; attempt++) {
    const x = 1 + Math.floor(Math.random() * 254);
    if (!routes.includes(`100.64.${x}.`) && !routes.includes(`172.20.${x}.`)) return x;
  }
  throw new Error('no free test subnet');
}

interface AgentReply {
  id?: number;
  ok?: boolean;
  result?: unknown;
  error?: string;
  ready?: boolean;
}

/** One stand-in pod: a network namespace with an address on its node's bridge and a server on POD_PORT. */
export class NetnsPod {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: AgentReply) => void>();

  constructor(
    readonly name: string,
    readonly ip: string,
    /** The node the pod's endpoint names (its `nodeName`). */
    readonly nodeName: string,
    readonly netns: string,
    private readonly agent: ChildProcess,
  ) {
    createInterface({ input: agent.stdout! }).on('line', (line) => {
      const reply = JSON.parse(line) as AgentReply;
      if (reply.id === undefined) return;
      this.waiting.get(reply.id)?.(reply);
      this.waiting.delete(reply.id);
    });
  }

  private request<T>(request: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, (reply) => (reply.ok ? resolve(reply.result as T) : reject(new Error(`${this.name}: ${reply.error}`))));
      this.agent.stdin!.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  }

  /** Connects over TCP from this pod and returns the first line the server sent (`<pod> <client ip>:<port>`). */
  tcp(host: string, port: number, timeoutMs = 2000): Promise<string> {
    return this.request({ op: 'tcp', host, port, timeoutMs });
  }

  /** Opens a TCP connection and closes it at once (for servers that do not speak first). */
  connect(host: string, port: number, timeoutMs = 2000): Promise<boolean> {
    return this.request({ op: 'connect', host, port, timeoutMs });
  }

  /** Sends one UDP datagram from a fresh socket and returns the answer. */
  udp(host: string, port: number, timeoutMs = 2000): Promise<string> {
    return this.request({ op: 'udp', host, port, timeoutMs });
  }

  /** Opens a connection kept for `send`; resolves to its handle and first line. */
  open(host: string, port: number, timeoutMs = 2000): Promise<{ handle: number; first: string }> {
    return this.request({ op: 'open', host, port, timeoutMs });
  }

  /** Sends a line on an open connection and returns the server's answer. */
  send(handle: number, text: string, timeoutMs = 2000): Promise<string> {
    return this.request({ op: 'send', handle, text, timeoutMs });
  }

  close(handle: number): Promise<boolean> {
    return this.request({ op: 'close', handle });
  }

  stop(): void {
    this.agent.stdin?.end();
    this.agent.kill('SIGKILL');
  }
}

/** One node: a namespace linked to the host, with a bridge for its pods and the node's own address. */
export class NetnsNode {
  private readonly pods: NetnsPod[] = [];
  private podCount = 0;

  private constructor(
    readonly name: string,
    readonly prefix: string,
    readonly netns: string,
    private readonly hostLink: string,
    readonly hostIp: string,
    readonly nodeIp: string,
    readonly podCidr: string,
    private readonly octet: number,
  ) {}

  /**
   * Makes the node `name` (its namespace `<prefix>-<name>`): veth `<prefix>h` on the host with
   * 100.64.X.1/30, `eth0` in the node with 100.64.X.2/30 and a default route back, a bridge `br0`
   * with 172.20.X.1/24 for pods, forwarding on, and a host route to the pods through the node.
   * `serviceCidr` and 10.99.X.0/24 (for external IPs) are routed into a portless bridge of the node:
   * traffic to an address the proxy does not DNAT goes nowhere instead of leaving through the host.
   */
  static create(prefix: string, name: string, serviceCidr: string): NetnsNode {
    const x = freeOctet();
    const netns = `${prefix}-${name}`;
    const hostLink = `${prefix.replaceAll('-', '')}h`.slice(0, 15);
    const node = new NetnsNode(name, prefix, netns, hostLink, `100.64.${x}.1`, `100.64.${x}.2`, `172.20.${x}.0/24`, x);
    try {
      ip(['netns', 'add', netns]);
      ip(['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', `${hostLink}n`]);
      ip(['link', 'set', `${hostLink}n`, 'netns', netns]);
      ip(['addr', 'add', `${node.hostIp}/30`, 'dev', hostLink]);
      ip(['link', 'set', hostLink, 'up']);
      inNetns(netns, ['ip', 'link', 'set', 'lo', 'up']);
      inNetns(netns, ['ip', 'link', 'set', `${hostLink}n`, 'name', 'eth0']);
      inNetns(netns, ['ip', 'addr', 'add', `${node.nodeIp}/30`, 'dev', 'eth0']);
      inNetns(netns, ['ip', 'link', 'set', 'eth0', 'up']);
      inNetns(netns, ['ip', 'route', 'add', 'default', 'via', node.hostIp]);
      // A bridge without ports drops what is routed into it (the dummy driver is not always loaded).
      inNetns(netns, ['ip', 'link', 'add', 'void0', 'type', 'bridge']);
      inNetns(netns, ['ip', 'link', 'set', 'void0', 'up']);
      inNetns(netns, ['ip', 'route', 'add', serviceCidr, 'dev', 'void0']);
      inNetns(netns, ['ip', 'route', 'add', `10.99.${x}.0/24`, 'dev', 'void0']);
      inNetns(netns, ['ip', 'link', 'add', 'br0', 'type', 'bridge']);
      inNetns(netns, ['ip', 'addr', 'add', `172.20.${x}.1/24`, 'dev', 'br0']);
      inNetns(netns, ['ip', 'link', 'set', 'br0', 'up']);
      inNetns(netns, ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
      // Replies to pods that reached the host (the API server) go back through the node.
      ip(['route', 'add', node.podCidr, 'via', node.nodeIp, 'dev', hostLink]);
    } catch (error) {
      node.destroy();
      throw error;
    }
    return node;
  }

  /** An address outside the pods' range that goes nowhere unless the proxy DNATs it: an external IP for tests. */
  get externalIp(): string {
    return `10.99.${this.octet}.7`;
  }

  /** The bridge's address: pods' gateway, and the source of what the node masquerades towards them. */
  get bridgeIp(): string {
    return `172.20.${this.octet}.1`;
  }

  /** Starts a pod on this node's bridge; `nodeName` is the node its endpoint claims (another node's name plays a remote pod). */
  async addPod(name: string, nodeName = this.name): Promise<NetnsPod> {
    const k = ++this.podCount;
    const podIp = `172.20.${this.octet}.${10 + k}`;
    const netns = `${this.prefix}-${name}`;
    const hostSide = `${this.prefix.replaceAll('-', '')}p${k}`.slice(0, 15);
    ip(['netns', 'add', netns]);
    inNetns(this.netns, ['ip', 'link', 'add', hostSide, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
    inNetns(this.netns, ['ip', 'link', 'set', hostSide, 'master', 'br0']);
    // As the CNI bridge plugin's hairpinMode: with bridge-nf-call-iptables on, a pod's packet DNATed
    // back to the pod itself is bridged out of the port it came in on.
    inNetns(this.netns, ['ip', 'link', 'set', hostSide, 'type', 'bridge_slave', 'hairpin', 'on']);
    inNetns(this.netns, ['ip', 'link', 'set', hostSide, 'up']);
    inNetns(netns, ['ip', 'link', 'set', 'lo', 'up']);
    inNetns(netns, ['ip', 'addr', 'add', `${podIp}/24`, 'dev', 'eth0']);
    inNetns(netns, ['ip', 'link', 'set', 'eth0', 'up']);
    inNetns(netns, ['ip', 'route', 'add', 'default', 'via', this.bridgeIp]);
    const agent = spawn('ip', ['netns', 'exec', netns, process.execPath, AGENT, name, String(POD_PORT)], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`pod ${name} did not start`)), 10_000);
      const lines = createInterface({ input: agent.stdout });
      lines.once('line', () => {
        clearTimeout(timer);
        lines.close();
        resolve();
      });
      agent.once('exit', (code) => reject(new Error(`pod ${name} exited (${code})`)));
    });
    const pod = new NetnsPod(name, podIp, nodeName, netns, agent);
    this.pods.push(pod);
    return pod;
  }

  /** Runs a command in the node's namespace; its stdout. */
  exec(args: string[]): string {
    return inNetns(this.netns, args);
  }

  /** Removes the pods, the node's namespace (and with it the veth pairs and the bridge) and the host's route. */
  destroy(): void {
    for (const pod of this.pods) {
      pod.stop();
      spawnSync('ip', ['netns', 'del', pod.netns]);
    }
    spawnSync('ip', ['netns', 'del', this.netns]);
    spawnSync('ip', ['link', 'del', this.hostLink]);
  }
}

/** A prefix for one test file's namespaces and links: `svcpx-` and four random hex digits. */
export function netnsPrefix(): string {
  return `svcpx-${randomBytes(2).toString('hex')}`;
}

/** Connects from the host (outside every node) over TCP and returns the first line; rejects on timeout. */
export function tcpFromHost(host: string, port: number, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('timeout'));
    }, timeoutMs);
    socket.on('data', (chunk) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text.slice(0, nl));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

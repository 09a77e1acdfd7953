import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointSlice } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { summarize } from '../apiserver/stats';
import { positiveFromEnv } from '../support/env-number';
import { NetnsNode, netnsPrefix, netnsUnavailable, POD_PORT, type NetnsPod } from '../support/netns-network';

/**
 * A Service's endpoint change to traffic moved, on one node played by a network namespace (the
 * `svc-proxy` process in it, a real API server outside), measured by a client pod that connects to the
 * cluster IP over and over until the other pod answers:
 * - through the proxy, each change reaching a quiet proxy (more than --iptables-min-sync-period after
 *   the last sync): the EndpointSlice update, its watch event, the sync and the nft transaction;
 * - through the proxy, changes back to back (each right after the previous one moved): the rate
 *   limit of kube-proxy's sync runner (a burst of two, then one sync per second) shows;
 * - by hand: the same change as an nft script (the service chain's random pick pointed at the other
 *   endpoint chain) applied with `nft -f` in the node's namespace, as the proxy applies its
 *   transactions: the floor the proxy adds to.
 */
const CHANGES = positiveFromEnv('SERVICE_PROXY_BENCH_CHANGES', 30);
const QUIET_MS = 1_100;
const SERVICE_CIDR = '10.98.0.0/16';
const MOVE_TIMEOUT_MS = 10_000;
const PROBE_PAUSE_MS = 10;

const ROOT = join(__dirname, '..', '..');
const API_SERVER_ENTRY = join(ROOT, 'apps', 'apiserver', 'src', 'main.js');
const PROXY_ENTRY = join(ROOT, 'apps', 'proxy', 'src', 'main.js');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** Connects from `client` until `pod` answers; ms from `since`. */
async function movedTo(client: NetnsPod, ip: string, port: number, pod: string, since: number): Promise<number> {
  const deadline = since + MOVE_TIMEOUT_MS;
  for (;;) {
    const answer = await client.tcp(ip, port, 500).catch(() => '');
    if (answer.startsWith(`${pod} `)) return performance.now() - since;
    if (performance.now() > deadline) throw new Error(`traffic did not move to ${pod} in ${MOVE_TIMEOUT_MS} ms`);
    // A pause between probes (the figures' resolution): a loop without one opens hundreds of
    // connections a second from one pod to one cluster IP, and the reuse of their source ports
    // against conntrack entries still bound to the old endpoint then refuses or drops connections
    // for seconds after the rules have moved.
    await sleep(PROBE_PAUSE_MS);
  }
}

function child(command: string, args: string[]): { process: ChildProcess; output: () => string } {
  let output = '';
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return { process: proc, output: () => output };
}

export async function run(): Promise<void> {
  const unavailable = netnsUnavailable() ?? (spawnSync('nft', ['--version']).status === 0 ? undefined : 'nft is not installed (apt-get install nftables)');
  if (unavailable) {
    console.log(`service-proxy: skipped: ${unavailable}`);
    return;
  }
  if (!existsSync(PROXY_ENTRY)) throw new Error(`${PROXY_ENTRY} is missing; run "npm run build" first`);
  const dir = mkdtempSync(join(tmpdir(), 'svcpx-bench-'));
  const node = NetnsNode.create(netnsPrefix(), 'node-a', SERVICE_CIDR);
  const processes: ChildProcess[] = [];
  const children: { name: string; output: () => string }[] = [];
  try {
    const [a, b, x] = await Promise.all([node.addPod('a'), node.addPod('b'), node.addPod('x')]);
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const apiserver = child(process.execPath, [
      API_SERVER_ENTRY,
      `--bind-address=${node.hostIp}`,
      `--secure-port=${port}`,
      `--data-dir=${join(dir, 'data')}`,
      `--cert-dir=${join(dir, 'certs')}`,
      `--svcconfig-out=${join(dir, 'svcconfig')}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
    ]);
    processes.push(apiserver.process);
    children.push({ name: 'svc-apiserver', output: apiserver.output });
    await waitFor('the API server', () => /Serving securely/.test(apiserver.output()));
    const client = new Client(await loadClientConfig({ svcconfig: join(dir, 'svcconfig') }));
    const proxy = child('ip', [
      'netns',
      'exec',
      node.netns,
      process.execPath,
      PROXY_ENTRY,
      `--svcconfig=${join(dir, 'svcconfig')}`,
      `--hostname-override=${node.name}`,
      `--bind-address=${node.nodeIp}`,
      `--cluster-cidr=${node.podCidr}`,
      '--healthz-bind-address=',
      '--metrics-bind-address=',
    ]);
    processes.push(proxy.process);
    children.push({ name: 'svc-proxy', output: proxy.output });
    await waitFor('the proxy', () => /^Rules synced$/m.test(proxy.output()));

    const service = await client.services.create(
      { metadata: { name: 'bench', namespace: 'default' }, spec: { ports: [{ name: 'tcp', port: 80, targetPort: POD_PORT }] } },
      { namespace: 'default' },
    );
    const ip = service.spec!.clusterIP!;
    const slice = (pod: NetnsPod): EndpointSlice => ({
      metadata: { name: 'bench-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'bench' } },
      addressType: 'IPv4',
      ports: [{ name: 'tcp', port: POD_PORT, protocol: 'TCP' }],
      endpoints: [{ addresses: [pod.ip], nodeName: node.name, conditions: { ready: true } }],
    });
    let current = await client.endpointSlices.create(slice(a), { namespace: 'default' });
    await movedTo(x, ip, 80, 'a', performance.now());

    const change = async (to: NetnsPod): Promise<number> => {
      const since = performance.now();
      current = await client.endpointSlices.update(
        { ...slice(to), metadata: { ...slice(to).metadata, resourceVersion: current.metadata?.resourceVersion } },
        { namespace: 'default' },
      );
      return movedTo(x, ip, 80, to.name, since);
    };
    const quiet: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      await sleep(QUIET_MS);
      quiet.push(await change(i % 2 === 0 ? b : a));
    }
    const backToBack: number[] = [];
    for (let i = 0; i < CHANGES; i++) backToBack.push(await change(i % 2 === 0 ? b : a));

    const peak = readStatus(proxy.process.pid);
    // By hand: the proxy stops (its rules stay), then the service chain is rewritten with nft directly.
    proxy.process.kill('SIGTERM');
    await waitFor('the proxy to stop', () => proxy.process.exitCode !== null || proxy.process.signalCode !== null);
    const table = node.exec(['nft', 'list', 'table', 'ip', 'svc-proxy']);
    const serviceChain = /chain (service-[A-Z2-7]{8}-default\/bench\/tcp\/tcp) \{/.exec(table)?.[1];
    if (!serviceChain) throw new Error('the proxy left no service chain for default/bench');
    const setup = [a, b]
      .map((pod) => `add chain ip svc-proxy hand-${pod.name}\nadd rule ip svc-proxy hand-${pod.name} meta l4proto tcp dnat to ${pod.ip}:${POD_PORT}`)
      .join('\n');
    const made = spawnSync('ip', ['netns', 'exec', node.netns, 'nft', '-f', '-'], { input: `${setup}\n`, encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`nft: ${made.stderr}`);
    const byHand: number[] = [];
    let to = a;
    for (let i = 0; i < CHANGES; i++) {
      await sleep(50);
      to = to === a ? b : a;
      const script = `flush chain ip svc-proxy ${serviceChain}\nadd rule ip svc-proxy ${serviceChain} numgen random mod 1 vmap { 0 : goto hand-${to.name} }\n`;
      const since = performance.now();
      // nsenter execs nft in the node's namespace, as the proxy runs nft there: `ip netns exec` would add
      // a remount of /sys to every change.
      const nft = spawn('nsenter', [`--net=/run/netns/${node.netns}`, 'nft', '-f', '-'], { stdio: ['pipe', 'ignore', 'inherit'] });
      nft.stdin.end(script);
      await new Promise((resolve) => nft.once('exit', resolve));
      byHand.push(await movedTo(x, ip, 80, to.name, since));
    }
    client.close();

    const q = summarize(quiet);
    const burst = summarize(backToBack);
    const hand = summarize(byHand);
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    console.log(`service-proxy: ${CHANGES} EndpointSlice changes each way, load ${loadavg()[0].toFixed(2)}`);
    const ratio = (v: number, ref: number) => `${(v / ref).toFixed(2)}x`;
    console.log(
      `  change reaching a quiet proxy -> traffic moved   p50 ${ms(q.p50)}  p99 ${ms(q.p99)}  (${ratio(q.p50, hand.p50)} / ${ratio(q.p99, hand.p99)} the nft change by hand at p50 / p99)`,
    );
    console.log(
      `  changes back to back -> traffic moved           p50 ${ms(burst.p50)}  p99 ${ms(burst.p99)}  (${ratio(burst.p50, hand.p50)} / ${ratio(burst.p99, hand.p99)}; one sync a second after a burst of two)`,
    );
    console.log(`  the same nft change by hand -> traffic moved     p50 ${ms(hand.p50)}  p99 ${ms(hand.p99)}  (1.0x)`);
    if (peak) console.log(`  proxy peak resident memory ${peak}`);
  } catch (error) {
    // What the processes said is the first thing to read when traffic did not move.
    for (const c of children) console.error(`--- ${c.name}, last lines:\n${c.output().split('\n').slice(-20).join('\n')}`);
    throw error;
  } finally {
    for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    spawnSync('ip', ['netns', 'exec', node.netns, 'nft', 'delete', 'table', 'ip', 'svc-proxy']);
    node.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

function readStatus(pid: number | undefined): string | undefined {
  try {
    const kib = Number(/^VmHWM:\s*(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kib) ? `${(kib / 1024).toFixed(0)} MiB` : undefined;
  } catch {
    return undefined;
  }
}

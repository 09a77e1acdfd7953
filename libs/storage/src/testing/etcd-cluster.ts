import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdClient } from '../store3/etcd-client';
import { ETCD, headerRevision, int64Number, uint64Text } from '../store3/etcd-protocol';

/** Debian's etcd server (package `etcd-server`), which the README's test command installs. */
export const ETCD_BINARY = process.env.SVC_ETCD_BINARY || '/usr/bin/etcd';
export const ETCD_INSTALL_COMMAND = 'apt-get install -y etcd-server';

/** Why no etcd member can be started here, or undefined when one can: tests that need etcd skip with it. */
export function etcdUnavailable(): string | undefined {
  try {
    accessSync(ETCD_BINARY, constants.X_OK);
  } catch {
    return `etcd is not installed (${ETCD_BINARY} missing): as root, "${ETCD_INSTALL_COMMAND}" (npm test does it)`;
  }
  return undefined;
}

export interface EtcdTlsAssets {
  /** PEM files the members serve with and check client certificates against. */
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  /** Require clients to present a certificate chaining to clientCaFile. */
  clientCertAuth?: boolean;
  /** The CA client certificates must chain to; default caFile. */
  clientCaFile?: string;
  /** The certificate the starter's own client presents (needed with clientCertAuth). */
  clientCertFile?: string;
  clientKeyFile?: string;
}

export interface StartEtcdClusterOptions {
  /** Number of members; default 3. */
  members?: number;
  /** The members' addresses, one per member; default 127.0.0.1 for all. */
  hosts?: readonly string[];
  /**
   * Wraps a member's command, e.g. to run it in a network namespace (`ip netns exec <ns>`): the
   * arguments put before the etcd binary, per member, or undefined to run it directly.
   */
  wrap?: (index: number) => readonly string[] | undefined;
  tls?: EtcdTlsAssets;
  /** Raft timing (ms); defaults are etcd's 100 and 1000. */
  heartbeatMs?: number;
  electionMs?: number;
  /** Added to every member's flags. */
  args?: readonly string[];
  /** How long to wait for a leader; default 30 s. */
  readyTimeoutMs?: number;
}

export interface EtcdMember {
  name: string;
  host: string;
  clientPort: number;
  peerPort: number;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  /** The running process, or undefined after kill/stop. */
  process: ChildProcess | undefined;
  log(): string;
}

export interface EtcdCluster {
  /** The client URLs, in `--store-servers` form. */
  readonly endpoints: string[];
  readonly members: EtcdMember[];
  /** Scratch directory of the whole cluster (data dirs of the members). */
  readonly dir: string;
  /** Kills one member (SIGKILL by default) and waits until it is gone. */
  kill(index: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a killed member again on its data dir, as a member of the existing cluster. */
  restart(index: number): Promise<void>;
  /** The index of the member that leads now, asking each running member; undefined while none does. */
  leader(): Promise<number | undefined>;
  /** Waits until a leader is elected and a quorum read succeeds through the given members (default all running). */
  waitForLeader(timeoutMs?: number): Promise<number>;
  /** Stops every member and removes the scratch directory. */
  stop(): Promise<void>;
}

/** A free TCP port on `host`, handed out by the kernel and released at once. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts an etcd cluster of its own for a test: each member on free ports of its host, its data
 * under a fresh temporary directory (`svc-etcd-*`), and resolves once a leader is elected and a
 * quorum read succeeds. A member whose ports were taken before it bound them makes the whole start
 * try again with new ports.
 */
export async function startEtcdCluster(options: StartEtcdClusterOptions = {}): Promise<EtcdCluster> {
  const unavailable = etcdUnavailable();
  if (unavailable !== undefined) throw new Error(unavailable);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const dir = await mkdtemp(join(tmpdir(), 'svc-etcd-'));
    const cluster = await launch(dir, options).catch(async (error: unknown) => {
      lastError = error;
      await rm(dir, { recursive: true, force: true });
      return undefined;
    });
    if (cluster !== undefined) return cluster;
    if (!/address already in use|bind/i.test(String(lastError))) break;
  }
  throw lastError;
}

async function launch(dir: string, options: StartEtcdClusterOptions): Promise<EtcdCluster> {
  const count = options.members ?? 3;
  const tls = options.tls;
  const scheme = tls ? 'https' : 'http';
  const members: EtcdMember[] = [];
  const logs: string[] = [];
  const appendLog = (index: number, text: string): void => {
    logs[index] = (logs[index] + text).slice(-20_000);
  };
  for (let i = 0; i < count; i++) {
    const host = options.hosts?.[i] ?? '127.0.0.1';
    // A member in a namespace of its own cannot be probed from here: its ports are free anyway.
    const probeHost = options.wrap?.(i) === undefined ? host : '127.0.0.1';
    const clientPort = await freePort(probeHost);
    const peerPort = await freePort(probeHost);
    logs.push('');
    members.push({
      name: `m${i}`,
      host,
      clientPort,
      peerPort,
      clientUrl: `${scheme}://${host}:${clientPort}`,
      peerUrl: `http://${host}:${peerPort}`,
      dataDir: join(dir, `m${i}`),
      process: undefined,
      log: () => logs[i],
    });
  }
  const initialCluster = members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
  const argsOf = (m: EtcdMember, state: 'new' | 'existing'): string[] => [
    `--name=${m.name}`,
    `--data-dir=${m.dataDir}`,
    `--listen-client-urls=${m.clientUrl}`,
    `--advertise-client-urls=${m.clientUrl}`,
    `--listen-peer-urls=${m.peerUrl}`,
    `--initial-advertise-peer-urls=${m.peerUrl}`,
    `--initial-cluster=${initialCluster}`,
    `--initial-cluster-state=${state}`,
    `--initial-cluster-token=svc-test-${process.pid}`,
    `--heartbeat-interval=${options.heartbeatMs ?? 100}`,
    `--election-timeout=${options.electionMs ?? 1000}`,
    '--logger=zap',
    '--log-level=warn',
    ...(tls
      ? [
          `--cert-file=${tls.serverCertFile}`,
          `--key-file=${tls.serverKeyFile}`,
          `--trusted-ca-file=${tls.clientCaFile ?? tls.caFile}`,
          ...(tls.clientCertAuth ? ['--client-cert-auth'] : []),
        ]
      : []),
    ...(options.args ?? []),
  ];
  const spawnMember = (index: number, state: 'new' | 'existing'): void => {
    const m = members[index];
    const wrap = options.wrap?.(index) ?? [];
    const command = wrap.length > 0 ? wrap[0] : ETCD_BINARY;
    const args = wrap.length > 0 ? [...wrap.slice(1), ETCD_BINARY, ...argsOf(m, state)] : argsOf(m, state);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => appendLog(index, chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => appendLog(index, chunk.toString()));
    child.on('exit', () => {
      if (m.process === child) m.process = undefined;
    });
    m.process = child;
  };
  members.forEach((_, i) => spawnMember(i, 'new'));

  const clientOptions = tls ? { caFile: tls.caFile, certFile: tls.clientCertFile, keyFile: tls.clientKeyFile } : {};
  const memberClient = new EtcdClient({ endpoints: members.map((m) => m.clientUrl), ...clientOptions, requestTimeoutMs: 2_000 });

  const leader = async (): Promise<number | undefined> => {
    const statuses = await Promise.all(
      members.map((m, i) => (m.process === undefined ? Promise.resolve(undefined) : memberClient.callMember(i, ETCD.status, {}, 1_000).catch(() => undefined))),
    );
    for (let i = 0; i < members.length; i++) {
      const status = statuses[i];
      if (status === undefined) continue;
      const leaderId = uint64Text(status.leader);
      if (leaderId !== '0' && leaderId === uint64Text(status.header?.member_id)) return i;
    }
    return undefined;
  };

  const waitForLeader = async (timeoutMs = options.readyTimeoutMs ?? 30_000): Promise<number> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const exited = members.find((m) => m.process === undefined && /address already in use|bind:/.test(m.log()));
      if (exited !== undefined) throw new Error(`etcd member ${exited.name} could not bind its ports: ${exited.log().slice(-500)}`);
      const index = await leader();
      if (index !== undefined) {
        const read = await memberClient
          .callMember(index, ETCD.range, { key: Buffer.from('svc-test-probe') }, 2_000)
          .then((r) => headerRevision(r.header) > 0)
          .catch(() => false);
        if (read) return index;
      }
      if (Date.now() > deadline) {
        throw new Error(`etcd cluster elected no leader within ${timeoutMs} ms: ${members.map((m) => `${m.name}: ${m.log().slice(-300)}`).join(' | ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const kill = async (index: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const child = members[index].process;
    if (child === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
    members[index].process = undefined;
  };

  const cluster: EtcdCluster = {
    endpoints: members.map((m) => m.clientUrl),
    members,
    dir,
    kill,
    restart: async (index) => {
      if (members[index].process !== undefined) return;
      spawnMember(index, 'existing');
      // Until it answers, it is not back.
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const ok = await memberClient
          .callMember(index, ETCD.status, {}, 1_000)
          .then((s) => int64Number(s.raftIndex) > 0)
          .catch(() => false);
        if (ok) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`etcd member ${members[index].name} did not come back: ${members[index].log().slice(-500)}`);
    },
    leader,
    waitForLeader,
    stop: async () => {
      memberClient.close();
      await Promise.all(members.map((_, i) => kill(i)));
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitForLeader();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

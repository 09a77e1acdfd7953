// store3 under faults: a three-member etcd cluster and two svc-apiserver processes on it, 16 clients
// (each naming both servers) getting, listing, creating, updating by compare-and-swap and deleting
// ConfigMaps through the API while a member is killed (kill -9), while the leader is killed, and while
// a member is cut off from the others (in a network namespace of its own, by nftables). Every history
// is checked for linearizability against a model of the whole store, and the two watches beside it
// (one per server, resuming like a reflector) for once-in-order delivery agreeing with the final
// state. A history that fails is kept under reports/histories/.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap } from '@svc/api';
import { Client, loadClientConfig, type ClientConfig } from '@svc/client';
import { ETCD, EtcdClient, etcdUnavailable, startEtcdCluster, type EtcdCluster } from '@svc/storage/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { ensureDebianPackages } from '@svc/cri';
import { HistoryRecorder, type HistoryEntry, type StoredItem } from './support/history/history';
import { RecordedWatch, runWorkload, verifyHistory } from './support/history/api-workload';
import { httpsFetch } from './support/https-client';

const unavailable = etcdUnavailable();
if (unavailable !== undefined) console.log(`store3 fault tests skipped: ${unavailable}`);
const NS = 'faults';
const CLIENTS = 16;
const ELECTION_MS = 1_000;

jest.setTimeout(180_000);

interface Stack {
  etcd: EtcdCluster;
  servers: ApiServerProcess[];
  configs: ClientConfig[];
  certDir: string;
}

/** Two API servers on the cluster (one certificate directory, so one connection file reaches both). */
async function startStack(etcd: EtcdCluster): Promise<Stack> {
  const certDir = await mkdtemp(join(tmpdir(), 'svc-etcd-faults-certs-'));
  const servers: ApiServerProcess[] = [];
  for (let i = 0; i < 2; i++) {
    servers.push(await startApiServerProcess({ storeServers: etcd.endpoints, certDir, args: ['--store-compaction-interval=0'], readyTimeoutMs: 60_000 }));
  }
  const base = await loadClientConfig({ svcconfig: servers[0].kubeconfig });
  const configs = servers.map((s) => ({ ...base, server: s.url, qps: -1, timeoutMs: 20_000 }));
  await new Client(configs[0]).namespaces.create({ metadata: { name: NS } });
  return { etcd, servers, configs, certDir };
}

async function stopStack(stack: Stack | undefined): Promise<void> {
  if (stack === undefined) return;
  await Promise.all(stack.servers.map((s) => s.stop()));
  await stack.etcd.stop();
  await rm(stack.certDir, { recursive: true, force: true });
}

interface ScenarioOutcome {
  history: HistoryEntry[];
  acknowledged: HistoryEntry[];
  elapsedMs: number;
}

/**
 * Runs the workload with `fault` beside it, then a sentinel write both watches must reach, a final
 * list, and the checks. Resolves with the history for the scenario's own assertions.
 */
async function scenario(stack: Stack, name: string, fault: (recorder: HistoryRecorder) => Promise<void>): Promise<ScenarioOutcome> {
  try {
    return await runScenario(stack, name, fault);
  } catch (error) {
    // What the servers said, for a failure that comes from them.
    for (const [i, server] of stack.servers.entries()) console.log(`${name}: server ${i} stderr (tail):\n${server.stderr().slice(-3000)}`);
    throw error;
  }
}

async function runScenario(stack: Stack, name: string, fault: (recorder: HistoryRecorder) => Promise<void>): Promise<ScenarioOutcome> {
  const started = Date.now();
  const single = stack.configs.map((config) => new Client(config));
  const clients = Array.from({ length: CLIENTS }, (_, c) => {
    const first = c % 2;
    return new Client({ ...stack.configs[first], servers: [stack.configs[1 - first].server] });
  });
  const listed = await single[0].configMaps.inNamespace(NS).list();
  const itemOf = (cm: ConfigMap): StoredItem => ({ key: cm.metadata?.name ?? '', value: cm.data?.v ?? '', rv: Number(cm.metadata?.resourceVersion) });
  const initial = { rv: Number(listed.metadata.resourceVersion), items: listed.items.map(itemOf) };
  const watches = single.map((client, i) => new RecordedWatch(`${name}: watch through server ${i}`, client, NS, initial.rv, initial.items));
  try {
    return await recordAndCheck(stack, name, fault, { single, clients, watches, initial, itemOf, started });
  } finally {
    await Promise.all(watches.map((w) => w.stop()));
    clients.forEach((c) => c.close());
    single.forEach((c) => c.close());
  }
}

async function recordAndCheck(
  stack: Stack,
  name: string,
  fault: (recorder: HistoryRecorder) => Promise<void>,
  context: {
    single: Client[];
    clients: Client[];
    watches: RecordedWatch[];
    initial: { rv: number; items: StoredItem[] };
    itemOf: (cm: ConfigMap) => StoredItem;
    started: number;
  },
): Promise<ScenarioOutcome> {
  const { single, clients, watches, initial, itemOf, started } = context;
  const recorder = new HistoryRecorder();
  const acknowledged: HistoryEntry[] = [];
  const work = runWorkload({
    clients,
    namespace: NS,
    keys: 12,
    maxOperationsPerClient: 70,
    durationMs: 6_000,
    recorder,
    valuePrefix: `${name}-`,
    onAcknowledgedWrite: (entry) => acknowledged.push(entry),
  });
  await fault(recorder);
  await work;

  // A last write through a server that is up; both watches must reach it.
  const live = await firstLive(stack);
  const sentinel = await recorder.run<{ rv: number }>(
    CLIENTS,
    (o) => ({ type: 'create', key: `sentinel-${name}`, value: `${name}-sentinel`, outcome: o }),
    async () => {
      const created = await single[live].configMaps.inNamespace(NS).create({ metadata: { name: `sentinel-${name}` }, data: { v: `${name}-sentinel` } });
      return { kind: 'ok', value: { rv: Number(created.metadata?.resourceVersion) } };
    },
  );
  const sentinelRv = sentinel.op.outcome.kind === 'ok' ? (sentinel.op.outcome.value as { rv: number }).rv : Number.NaN;
  const deadline = Date.now() + 30_000;
  const liveWatches = watches.filter((_, i) => stack.servers[i].exitStatus() === undefined);
  while (liveWatches.some((w) => w.lastRevision < sentinelRv) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const finalList = await single[live].configMaps.inNamespace(NS).list();
  const final = { rv: Number(finalList.metadata.resourceVersion), items: finalList.items.map(itemOf) };
  await Promise.all(watches.map((w) => w.stop()));
  for (const w of liveWatches) expect([w.name, w.lastRevision >= sentinelRv]).toEqual([w.name, true]);
  expect(watches.flatMap((w) => w.problems)).toEqual([]);

  const verdict = await verifyHistory(
    name,
    recorder.entries,
    initial,
    liveWatches.map((w) => w.record(final)),
  );
  const unknown = recorder.entries.filter((e) => e.op.outcome.kind === 'unknown').length;
  console.log(
    `${name}: ${recorder.entries.length} operations (${acknowledged.length} writes acknowledged, ${unknown} of unknown outcome), ` +
      `linearizability ${verdict.linearizability.outcome} in ${verdict.linearizability.elapsedMs.toFixed(0)} ms, ` +
      `${liveWatches.map((w) => w.events.length).join(' and ')} watch events${verdict.artifact ? `; history kept in ${verdict.artifact}` : ''}`,
  );
  expect(verdict.linearizability).toMatchObject({ outcome: 'linearizable' });
  expect(verdict.watchProblems).toEqual([]);
  return { history: recorder.entries, acknowledged, elapsedMs: Date.now() - started };
}

async function firstLive(stack: Stack): Promise<number> {
  for (let i = 0; i < stack.servers.length; i++) if (stack.servers[i].exitStatus() === undefined) return i;
  throw new Error('no API server is running');
}

/** Polls /readyz of every server until stopped; resolves with the failures seen. */
function watchReadiness(stack: Stack): { stop: () => Promise<string[]> } {
  const failures: string[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        stack.servers.map(async (server, i) => {
          const response = await httpsFetch(`${server.url}/readyz`, { ca: server.ca }).catch((e: unknown) => ({ status: 0, body: String(e) }));
          if (response.status !== 200) failures.push(`server ${i}: ${response.status} ${response.body.slice(0, 200)}`);
        }),
      );
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return failures;
    },
  };
}

(unavailable ? describe.skip : describe)('store3 under etcd member faults (loopback)', () => {
  let stack: Stack | undefined;

  beforeAll(async () => {
    stack = await startStack(await startEtcdCluster({ members: 3, electionMs: ELECTION_MS }));
  });
  afterAll(() => stopStack(stack));

  test('kill -9 of one member during writes from 16 clients: nothing acknowledged is lost and both API servers stay ready', async () => {
    const s = stack!;
    const leader = await s.etcd.waitForLeader();
    const victim = (leader + 1) % 3;
    const readiness = watchReadiness(s);
    let unready: string[];
    try {
      await scenario(s, 'kill-member', async () => {
        await new Promise((r) => setTimeout(r, 1_500));
        await s.etcd.kill(victim, 'SIGKILL');
      });
    } finally {
      unready = await readiness.stop();
      await s.etcd.restart(victim);
    }
    expect(unready).toEqual([]);
  });

  test('kill -9 of the leader: writes resume within the election timeout and a few seconds', async () => {
    const s = stack!;
    const leader = await s.etcd.waitForLeader();
    let killedAt = 0;
    const outcome = await scenario(s, 'kill-leader', async (recorder) => {
      await new Promise((r) => setTimeout(r, 1_500));
      killedAt = recorder.now();
      await s.etcd.kill(leader, 'SIGKILL');
    });
    const resumed = outcome.acknowledged.filter((e) => e.call > killedAt).sort((a, b) => a.return - b.return)[0];
    expect(resumed).toBeDefined();
    const pause = resumed.return - killedAt;
    console.log(`kill-leader: the first write sent after the kill was acknowledged ${pause.toFixed(0)} ms after it`);
    expect(pause).toBeLessThan(ELECTION_MS + 5_000);
    await s.etcd.restart(leader);
    await s.etcd.waitForLeader();
  });
});

/**
 * A member in a network namespace of its own (veth to the host), the two others on the host end's
 * address: nftables rules in the namespace then cut the member's peer traffic and nothing else, so
 * its clients still reach it and see it refuse.
 */
const partitionUnavailable = ((): string | undefined => {
  if (unavailable !== undefined) return unavailable;
  if (process.getuid?.() !== 0) return 'network namespaces and nftables need root';
  const missing = ensureDebianPackages([
    { name: 'nftables', provides: '/usr/sbin/nft' },
    { name: 'iproute2', provides: '/usr/sbin/ip' },
  ]);
  if (missing !== undefined) return missing;
  return spawnSync('ip', ['netns', 'list']).status === 0 ? undefined : 'ip netns is not usable here';
})();
if (unavailable === undefined && partitionUnavailable !== undefined) console.log(`store3 partition test skipped: ${partitionUnavailable}`);

(partitionUnavailable ? describe.skip : describe)('store3 under a network partition of one member (network namespace and nftables)', () => {
  const tag = `svcetcd${process.pid % 100_000}`;
  const ns = `${tag}-ns`;
  const hostIf = `${tag}h`.slice(0, 15);
  const nsIf = `${tag}n`.slice(0, 15);
  let subnet = '';
  let stack: Stack | undefined;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  const inNs = (...args: string[]) => execFileSync('ip', ['netns', 'exec', ns, ...args], { stdio: 'pipe', input: '' });

  beforeAll(async () => {
    // A /30 of 10.213.0.0/16 that no interface of this host uses yet.
    const used = execFileSync('ip', ['-4', '-o', 'addr'], { encoding: 'utf8' });
    for (let i = 0; i < 250 && subnet === ''; i++) {
      const candidate = `10.213.${(process.pid + i) % 250}`;
      if (!used.includes(`${candidate}.`)) subnet = candidate;
    }
    ip('netns', 'add', ns);
    ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
    ip('link', 'set', nsIf, 'netns', ns);
    ip('addr', 'add', `${subnet}.1/30`, 'dev', hostIf);
    ip('link', 'set', hostIf, 'up');
    inNs('ip', 'addr', 'add', `${subnet}.2/30`, 'dev', nsIf);
    inNs('ip', 'link', 'set', nsIf, 'up');
    inNs('ip', 'link', 'set', 'lo', 'up');
    const etcd = await startEtcdCluster({
      members: 3,
      electionMs: ELECTION_MS,
      hosts: [`${subnet}.1`, `${subnet}.1`, `${subnet}.2`],
      wrap: (i) => (i === 2 ? ['ip', 'netns', 'exec', ns] : undefined),
    });
    stack = await startStack(etcd);
  });

  afterAll(async () => {
    await stopStack(stack);
    spawnSync('ip', ['netns', 'exec', ns, 'nft', 'delete', 'table', 'inet', tag]);
    spawnSync('ip', ['link', 'del', hostIf]);
    spawnSync('ip', ['netns', 'del', ns]);
  });

  test('the cut-off member refuses writes, the majority serves them, and nothing acknowledged is lost once it heals', async () => {
    const s = stack!;
    const members = s.etcd.members;
    const cut = members[2];
    const peers = members.map((m) => m.peerPort);
    const partition = [
      `table inet ${tag} {`,
      `  chain input { type filter hook input priority 0; policy accept; tcp dport ${cut.peerPort} drop; tcp sport { ${peers[0]}, ${peers[1]} } drop; }`,
      `  chain output { type filter hook output priority 0; policy accept; tcp dport { ${peers[0]}, ${peers[1]} } drop; tcp sport ${cut.peerPort} drop; }`,
      '}',
    ].join('\n');
    let refused = '';
    let duringPartition = 0;
    let cutAt = 0;
    let healedAt = Number.POSITIVE_INFINITY;
    const outcome = await scenario(s, 'partition', async (recorder) => {
      await new Promise((r) => setTimeout(r, 1_000));
      execFileSync('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], { input: partition });
      cutAt = recorder.now();
      // Once it has noticed (an election timeout or so), the member alone refuses a write.
      await new Promise((r) => setTimeout(r, 3 * ELECTION_MS));
      const alone = new EtcdClient({ endpoints: [cut.clientUrl], requestTimeoutMs: 3_000 });
      refused = await alone
        .call(ETCD.put, { key: Buffer.from('/svc-partition-probe'), value: Buffer.from('x') }, { write: true, timeoutMs: 3_000 })
        .then(() => '')
        .catch((e: unknown) => String((e as Error).message));
      alone.close();
      await new Promise((r) => setTimeout(r, 1_000));
      execFileSync('ip', ['netns', 'exec', ns, 'nft', 'delete', 'table', 'inet', tag]);
      healedAt = recorder.now();
    });
    duringPartition = outcome.acknowledged.filter((e) => e.call > cutAt && e.return < healedAt).length;
    console.log(`partition: the cut-off member answered a write with "${refused}"; ${duringPartition} writes acknowledged by the majority meanwhile`);
    // Refused at once as having no leader (etcd's require-leader check), not merely timed out.
    expect(refused).toContain('no leader');
    expect(duringPartition).toBeGreaterThan(0);
    // After the heal the member catches up: a quorum read through it sees the last write.
    const last = Math.max(...outcome.acknowledged.map((e) => (e.op.outcome.kind === 'ok' ? ((e.op.outcome.value as { rv?: number }).rv ?? 0) : 0)));
    const healed = new EtcdClient({ endpoints: [cut.clientUrl] });
    try {
      const deadline = Date.now() + 20_000;
      let revision = 0;
      while (revision < last && Date.now() < deadline) {
        revision = await healed
          .call(ETCD.range, { key: Buffer.from('/svc-partition-probe'), count_only: true })
          .then((r) => Number(r.header?.revision ?? 0))
          .catch(() => 0);
        if (revision < last) await new Promise((r) => setTimeout(r, 200));
      }
      expect(revision).toBeGreaterThanOrEqual(last);
    } finally {
      healed.close();
    }
  });
});

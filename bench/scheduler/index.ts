import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@svc/api';
import { Client, loadClientConfig, type Watch } from '@svc/client';
import { atConcurrency } from '../apiserver/at-concurrency';
import { memoryMiB, processCpuMicros, startNodeChild, type Child } from '../apiserver/child-processes';
import { freePort, startApiServer, type RunningServer } from '../apiserver/server-processes';
import { percentile } from '../apiserver/stats';
import { positiveFromEnv } from '../support/env-number';
import { probeGet } from '../support/probe-get';

/**
 * Scheduler throughput on one machine, in one run: an API server, NODES simulated nodes
 * (svc-node-simulator: Nodes, Lease renewals and the status writes of the pods bound to them, as their
 * agents would) and the scheduler, each a child process, driven from this process. Two phases:
 * - Backlog (scheduler_perf's shape): PODS pods with requests are created before the scheduler runs;
 *   then the scheduler starts, and pods bound per second are counted from its metrics (no watch in
 *   the way) from the moment it leads until every pod is bound.
 * - Streaming: STREAM_PODS more pods created at CONCURRENCY in flight while the scheduler runs, and
 *   watched: the time from sending a pod's create to seeing it bound, beside the time to seeing it in
 *   the watch at all (the API server's own delivery, which the scheduler waits for as well).
 * Each phase reports the CPU and memory of the API server, the scheduler and the node simulator.
 *
 *   npm run bench -- scheduler
 *   SCHEDULER_BENCH_PODS=2000 SCHEDULER_BENCH_NODES=200 npm run bench -- scheduler
 */
const PODS = positiveFromEnv('SCHEDULER_BENCH_PODS', 10_000);
const STREAM_PODS = positiveFromEnv('SCHEDULER_BENCH_STREAM_PODS', 1_000);
const NODES = positiveFromEnv('SCHEDULER_BENCH_NODES', 1_000);
const CONCURRENCY = positiveFromEnv('SCHEDULER_BENCH_CONCURRENCY', 32);
/** The scheduler's client rate (kube-scheduler's scheduler_perf runs with 5,000 as well). */
const QPS = positiveFromEnv('SCHEDULER_BENCH_QPS', 5_000);
/**
 * The node simulator's client rate: enough for NODES lease renewals every 10 s with room for pod
 * status writes, as a fleet of node agents would add to the API server's load.
 */
const NODE_QPS = positiveFromEnv('SCHEDULER_BENCH_NODE_QPS', Math.max(200, NODES / 2));
const TIMEOUT_MS = positiveFromEnv('SCHEDULER_BENCH_TIMEOUT_SECONDS', 600) * 1000;
const NAMESPACE = 'bench-scheduler';

const DIST = join(__dirname, '..', '..', 'apps');
const SCHEDULER_ENTRY = join(DIST, 'scheduler', 'src', 'main.js');
const NODE_SIMULATOR_ENTRY = join(DIST, 'node-simulator', 'src', 'main.js');

/** The samples of one metric, `labels value` per line, from a Prometheus text page. */
function metricLines(page: string, name: string): string[] {
  return page
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => line.slice(name.length).trim());
}

async function until(what: string, check: () => Promise<boolean> | boolean, child?: Child, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!(await check())) {
    if (child && child.process.exitCode !== null) throw new Error(`${what}: a child exited:\n${child.output()}`);
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function pod(i: number, phase: 'backlog' | 'streaming' = 'backlog'): Pod {
  return {
    metadata: { name: phase === 'backlog' ? `pod-${i}` : `stream-${i}`, namespace: NAMESPACE, labels: { app: 'bench', phase } },
    spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
  };
}

interface Usage {
  name: string;
  child: Child;
  cpu0: number;
}

/**
 * CPU seconds of each child since `start`, with its share of a core over `elapsedMs`, its CPU per pod
 * (what it costs whatever the machine's load; a core divided by it is the most that process could
 * sustain alone) and its memory.
 */
function report(usage: readonly Usage[], elapsedMs: number, pods: number): void {
  for (const u of usage) {
    const seconds = ((processCpuMicros(u.child.pid) ?? 0) - u.cpu0) / 1e6;
    const perPodMs = (seconds * 1000) / pods;
    console.log(
      `  ${u.name.padEnd(15)} CPU ${seconds.toFixed(1)} s (${((seconds * 1000 * 100) / elapsedMs).toFixed(0)}% of a core), ${perPodMs.toFixed(2)} ms a pod (a core: ${(1000 / perPodMs).toFixed(0)} pods/s), resident ${memoryMiB(u.child.pid)} MiB, peak ${memoryMiB(u.child.pid, 'VmHWM')} MiB`,
    );
  }
}

function start(usage: readonly Usage[]): number {
  for (const u of usage) u.cpu0 = processCpuMicros(u.child.pid) ?? 0;
  return performance.now();
}

/** A line every 10 s, so that a run on a slow or loaded machine shows where it is. */
function everyTenSeconds(line: () => string): () => void {
  const since = performance.now();
  const timer = setInterval(() => console.log(`  ${((performance.now() - since) / 1000).toFixed(0)} s: ${line()}`), 10_000);
  return () => clearInterval(timer);
}

/** The scheduler's queues as its metrics show them: `active 3, backoff 0, unschedulable 0`. */
async function pendingPods(port: number): Promise<string> {
  const page = (await probeGet(port, '/metrics').catch(() => ({ body: '' }))).body;
  return metricLines(page, 'scheduler_pending_pods')
    .map((line) => line.replace(/^\{queue="([^"]+)"\} /, '$1 '))
    .join(', ');
}

async function bindingsDone(port: number): Promise<number> {
  const page = (await probeGet(port, '/metrics')).body;
  const line = metricLines(page, 'scheduler_bindings_total').find((l) => l.startsWith('{result="scheduled"}'));
  return Number(line?.split(' ')[1] ?? 0);
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scheduler-'));
  let server: RunningServer | undefined;
  let nodes: Child | undefined;
  let scheduler: Child | undefined;
  let client: Client | undefined;
  let watch: Watch<Pod> | undefined;
  try {
    console.log(
      `cores ${cpus().length}, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${PODS} + ${STREAM_PODS} pods on ${NODES} simulated nodes, creates at ${CONCURRENCY} in flight, scheduler --svc-api-qps=${QPS}`,
    );
    // No node lifecycle controller runs here to lift the not-ready taint that admission puts on new nodes.
    server = await startApiServer(dir, ['--disable-admission-plugins=TaintNodesByCondition']);
    const svcconfig = join(dir, 'svcconfig');
    client = new Client({ ...(await loadClientConfig({ svcconfig })), qps: -1 });
    await client.namespaces.create({ metadata: { name: NAMESPACE } });
    const pods = client.pods.inNamespace(NAMESPACE);

    const registering = performance.now();
    nodes = startNodeChild(NODE_SIMULATOR_ENTRY, [
      `--svcconfig=${svcconfig}`,
      `--nodes=${NODES}`,
      '--zones=zone-a,zone-b,zone-c',
      `--svc-api-qps=${NODE_QPS}`,
      `--svc-api-burst=${NODE_QPS}`,
      `--concurrency=${CONCURRENCY}`,
    ]);
    const simulator = nodes;
    await until(`${NODES} nodes registered`, () => simulator.output().includes('Running '), simulator);
    console.log(`${NODES} nodes registered in ${((performance.now() - registering) / 1000).toFixed(1)} s`);

    let created = 0;
    const stopCreateProgress = everyTenSeconds(() => `${created} created`);
    const createMs = await atConcurrency(PODS, CONCURRENCY, async (i) => {
      await pods.create(pod(i));
      created++;
    }).finally(stopCreateProgress);
    console.log(`${PODS} pods created before the scheduler runs, in ${(createMs / 1000).toFixed(1)} s (${((PODS / createMs) * 1000).toFixed(0)}/s)`);

    const schedulerPort = await freePort();
    scheduler = startNodeChild(SCHEDULER_ENTRY, [
      `--svcconfig=${svcconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${schedulerPort}`,
      '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
      `--svc-api-qps=${QPS}`,
      `--svc-api-burst=${QPS}`,
    ]);
    const running = scheduler;
    const usage: Usage[] = [
      { name: 'API server', child: server.child, cpu0: 0 },
      { name: 'scheduler', child: scheduler, cpu0: 0 },
      { name: 'node simulator', child: nodes, cpu0: 0 },
    ];

    // Backlog: the scheduler's informers list every pending pod at its start; the rate and the CPU
    // count from the moment it leads to the last binding.
    const launched = performance.now();
    await until('scheduler leading', () => running.output().includes('acquired lease'), running, 20);
    const leadingMs = performance.now() - launched;
    const leading = start(usage);
    let done = 0;
    const stopBacklogProgress = everyTenSeconds(() => `${done} bound`);
    await until(`${PODS} pods bound`, async () => (done = await bindingsDone(schedulerPort)) >= PODS, running, 100).finally(stopBacklogProgress);
    const backlogMs = performance.now() - leading;
    console.log(
      `backlog: ${PODS} pods bound in ${(backlogMs / 1000).toFixed(1)} s from the scheduler's leadership (it led ${(leadingMs / 1000).toFixed(1)} s after its start): ${((PODS / backlogMs) * 1000).toFixed(0)} pods/s`,
    );
    report(usage, backlogMs, PODS);

    // Streaming: every pod's first sight in the watch and its first sight bound, against the time its
    // create was sent.
    const sentAt = new Array<number>(STREAM_PODS).fill(Number.NaN);
    const seenAt = new Array<number>(STREAM_PODS).fill(Number.NaN);
    const boundAt = new Array<number>(STREAM_PODS).fill(Number.NaN);
    let seen = 0;
    let bound = 0;
    const list = await pods.list({ labelSelector: 'phase=streaming' });
    watch = await pods.watch({ labelSelector: 'phase=streaming', resourceVersion: list.metadata.resourceVersion });
    const opened = watch;
    const following = (async () => {
      for await (const event of opened) {
        if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
        const i = Number((event.object.metadata?.name ?? '').slice('stream-'.length));
        if (Number.isNaN(seenAt[i])) {
          seenAt[i] = performance.now();
          seen++;
        }
        if (event.object.spec.nodeName && Number.isNaN(boundAt[i])) {
          boundAt[i] = performance.now();
          bound++;
        }
      }
    })();
    const streaming = start(usage);
    created = 0;
    let queues = '';
    const stopStreamProgress = everyTenSeconds(() => {
      // Figures of the previous tick: the scheduler's own count runs ahead of this watch when the
      // API server's delivery lags.
      void Promise.all([pendingPods(schedulerPort), bindingsDone(schedulerPort)])
        .then(([q, b]) => (queues = `${b} bindings made; queues ${q}`))
        .catch(() => undefined);
      return `${created} created, ${seen} seen in the watch, ${bound} seen bound; the scheduler: ${queues}`;
    });
    await atConcurrency(STREAM_PODS, CONCURRENCY, async (i) => {
      sentAt[i] = performance.now();
      await pods.create(pod(i, 'streaming'));
      created++;
    })
      .then(() => until(`${STREAM_PODS} streamed pods bound`, () => bound === STREAM_PODS, running, 50))
      .finally(stopStreamProgress);
    const streamMs = performance.now() - streaming;
    watch.stop();
    await following.catch(() => undefined);
    const latencies = boundAt.map((t, i) => t - sentAt[i]);
    const delivery = seenAt.map((t, i) => t - sentAt[i]);
    console.log(
      `streaming: ${STREAM_PODS} pods created and bound in ${(streamMs / 1000).toFixed(1)} s (${((STREAM_PODS / streamMs) * 1000).toFixed(0)} pods/s); create to bound p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms; create to first watch event (the API server's delivery) p50 ${percentile(delivery, 50).toFixed(0)} ms, p99 ${percentile(delivery, 99).toFixed(0)} ms`,
    );
    report(usage, streamMs, STREAM_PODS);
    const metrics = (await probeGet(schedulerPort, '/metrics')).body;
    console.log(`scheduler attempts: ${metricLines(metrics, 'scheduler_schedule_attempts_total').join(', ')}`);
  } finally {
    watch?.stop();
    client?.close();
    await scheduler?.stop();
    await nodes?.stop();
    await server?.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@svc/api';
import { Client, loadClientConfig, type Watch } from '@svc/client';
import { atConcurrency } from '../apiserver/at-concurrency';
import { memoryMiB, processCpuMicros, startNodeChild, type Child } from '../apiserver/child-processes';
import { freePort, startApiServer, type RunningServer } from '../apiserver/server-processes';
import { percentile } from '../apiserver/stats';

/**
 * Scheduler throughput on one machine, in one run (Kubernetes' scheduler_perf "SchedulingBasic" shape):
 * an API server, NODES simulated nodes (svc-node-simulator: Nodes, Lease renewals and the status writes
 * of the pods bound to them, as their agents would) and the scheduler, each a child process. This
 * process creates PODS pods with requests at CONCURRENCY in flight and watches them: the time from
 * sending a pod's create to seeing it bound, pods bound per second, and the CPU and memory of the API
 * server, the scheduler and the node simulator over the run.
 *
 *   npm run bench -- scheduler
 *   SCHEDULER_BENCH_PODS=2000 SCHEDULER_BENCH_NODES=200 npm run bench -- scheduler
 */
const PODS = positive('SCHEDULER_BENCH_PODS', 10_000);
const NODES = positive('SCHEDULER_BENCH_NODES', 1_000);
const CONCURRENCY = positive('SCHEDULER_BENCH_CONCURRENCY', 32);
/** The scheduler's client rate (kube-scheduler's scheduler_perf runs with 5,000 as well). */
const QPS = positive('SCHEDULER_BENCH_QPS', 5_000);
/**
 * The node simulator's client rate: enough for NODES lease renewals every 10 s with room for pod
 * status writes, as a fleet of node agents would add to the API server's load.
 */
const NODE_QPS = positive('SCHEDULER_BENCH_NODE_QPS', Math.max(200, NODES / 2));
const TIMEOUT_MS = positive('SCHEDULER_BENCH_TIMEOUT_SECONDS', 600) * 1000;
const NAMESPACE = 'bench-scheduler';

const DIST = join(__dirname, '..', '..', 'apps');
const SCHEDULER_ENTRY = join(DIST, 'scheduler', 'src', 'main.js');
const NODE_SIMULATOR_ENTRY = join(DIST, 'node-simulator', 'src', 'main.js');

function positive(variable: string, fallback: number): number {
  const value = Number(process.env[variable] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${variable} must be a positive integer`);
  return value;
}

const insecure = new Agent({ rejectUnauthorized: false, keepAlive: true });

function getText(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: insecure, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject).end();
  });
}

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

function pod(i: number): Pod {
  return {
    metadata: { name: `pod-${i}`, namespace: NAMESPACE, labels: { app: 'bench' } },
    spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
  };
}

interface Usage {
  name: string;
  child: Child;
  cpu0: number;
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
        .join(' ')}; ${PODS} pods on ${NODES} simulated nodes, creates at ${CONCURRENCY} in flight, scheduler --svc-api-qps=${QPS}`,
    );
    // No node lifecycle controller runs here to lift the not-ready taint that admission puts on new nodes.
    server = await startApiServer(dir, ['--disable-admission-plugins=TaintNodesByCondition']);
    const svcconfig = join(dir, 'svcconfig');
    client = new Client({ ...(await loadClientConfig({ svcconfig })), qps: -1 });
    await client.namespaces.create({ metadata: { name: NAMESPACE } });

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
    const registeredMs = performance.now() - registering;

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
    await until('scheduler ready', async () => (await getText(schedulerPort, '/readyz').catch(() => ({ status: 0 }))).status === 200, running);
    await until('scheduler leading', () => running.output().includes('acquired lease'), running);

    // Every pod's first sight in the watch and its first sight bound, against the time its create was
    // sent: the first is the API server's watch delivery, which the scheduler waits for as well.
    const sentAt = new Array<number>(PODS).fill(Number.NaN);
    const boundAt = new Array<number>(PODS).fill(Number.NaN);
    let bound = 0;
    const seenAt = new Array<number>(PODS).fill(Number.NaN);
    const pods = client.pods.inNamespace(NAMESPACE);
    const list = await pods.list();
    watch = await pods.watch({ resourceVersion: list.metadata.resourceVersion });
    const opened = watch;
    const following = (async () => {
      for await (const event of opened) {
        if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
        const name = event.object.metadata?.name ?? '';
        const i = Number(name.slice('pod-'.length));
        if (Number.isNaN(seenAt[i])) seenAt[i] = performance.now();
        if (event.object.spec.nodeName && Number.isNaN(boundAt[i])) {
          boundAt[i] = performance.now();
          bound++;
        }
      }
    })();

    const usage: Usage[] = [
      { name: 'API server', child: server.child, cpu0: 0 },
      { name: 'scheduler', child: scheduler, cpu0: 0 },
      { name: 'node simulator', child: nodes, cpu0: 0 },
    ];
    for (const u of usage) u.cpu0 = processCpuMicros(u.child.pid) ?? 0;
    const started = performance.now();
    let created = 0;
    // A line every 10 s, so that a run on a slow or loaded machine shows where it is.
    const progress = setInterval(() => {
      const seen = seenAt.filter((t) => !Number.isNaN(t)).length;
      console.log(`  ${((performance.now() - started) / 1000).toFixed(0)} s: ${created} created, ${seen} seen in the watch, ${bound} bound`);
    }, 10_000);
    let createMs: number;
    try {
      createMs = await atConcurrency(PODS, CONCURRENCY, async (i) => {
        sentAt[i] = performance.now();
        await pods.create(pod(i));
        created++;
      });
      await until(`${PODS} pods bound`, () => bound === PODS, running, 50);
    } finally {
      clearInterval(progress);
    }
    const elapsedMs = performance.now() - started;
    const cpuSeconds = usage.map((u) => ((processCpuMicros(u.child.pid) ?? 0) - u.cpu0) / 1e6);
    watch.stop();
    await following.catch(() => undefined);

    const latencies = boundAt.map((t, i) => t - sentAt[i]);
    const seen = seenAt.map((t, i) => t - sentAt[i]);
    const seenToBound = boundAt.map((t, i) => t - seenAt[i]);
    // The busiest and the median one-second window of bindings, from the first create.
    const perSecond = new Array<number>(Math.ceil(elapsedMs / 1000)).fill(0);
    for (const t of boundAt) perSecond[Math.min(perSecond.length - 1, Math.floor((t - started) / 1000))]++;
    const metrics = (await getText(schedulerPort, '/metrics')).body;

    console.log(`${NODES} nodes registered in ${(registeredMs / 1000).toFixed(1)} s`);
    console.log(`${PODS} creates in ${(createMs / 1000).toFixed(2)} s (${((PODS / createMs) * 1000).toFixed(0)}/s)`);
    console.log(
      `${PODS} pods bound in ${(elapsedMs / 1000).toFixed(2)} s from the first create: ${((PODS / elapsedMs) * 1000).toFixed(0)} pods/s; busiest second ${Math.max(...perSecond)}, median second ${percentile(perSecond, 50)}`,
    );
    console.log(
      `create to bound: p50 ${percentile(latencies, 50).toFixed(0)} ms, p90 ${percentile(latencies, 90).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${percentile(latencies, 100).toFixed(0)} ms`,
    );
    console.log(
      `create to first watch event (the API server's delivery, reference): p50 ${percentile(seen, 50).toFixed(0)} ms, p99 ${percentile(seen, 99).toFixed(0)} ms; first watch event to bound: p50 ${percentile(seenToBound, 50).toFixed(0)} ms, p99 ${percentile(seenToBound, 99).toFixed(0)} ms`,
    );
    for (const [u, seconds] of usage.map((u, i) => [u, cpuSeconds[i]] as const)) {
      console.log(
        `${u.name.padEnd(15)} CPU ${seconds.toFixed(1)} s (${((seconds * 1000 * 100) / elapsedMs).toFixed(0)}% of a core), resident ${memoryMiB(u.child.pid)} MiB, peak ${memoryMiB(u.child.pid, 'VmHWM')} MiB`,
      );
    }
    console.log(`pods bound in each second from the first create: ${perSecond.slice(0, 120).join(' ')}${perSecond.length > 120 ? ' ...' : ''}`);
    console.log(`scheduler attempts: ${metricLines(metrics, 'scheduler_schedule_attempts_total').join(', ')}`);
    console.log(`bindings: ${metricLines(metrics, 'scheduler_bindings_total').join(', ')}`);
  } finally {
    watch?.stop();
    client?.close();
    await scheduler?.stop();
    await nodes?.stop();
    await server?.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

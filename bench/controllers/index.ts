import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment, Pod } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { PodReadinessSimulator } from '@svc/node-simulation';
import { memoryMiB, processCpuMicros, startNodeChild, type Child } from '../apiserver/child-processes';
import { freePort, startApiServer, type RunningServer } from '../apiserver/server-processes';
import { atConcurrency } from '../apiserver/at-concurrency';
import { positiveFromEnv } from '../support/env-number';
import { probeGet } from '../support/probe-get';
import { runIndexedJobPhase, type MeasuredPhase } from './indexed-job-phase';
import { runStatefulSetPhase } from './statefulset-phase';

/**
 * Built-in controller figures on one machine, in one run: an API server child process and a
 * controller manager child process (client rate raised with --svc-api-qps/--svc-api-burst), driven
 * from this process.
 * - Reference: this process creates REPLICAS pods itself at CONCURRENCY in flight (what the API
 *   server can take), then deletes them.
 * - A deployment of REPLICAS: time until REPLICAS pods exist; then, with a simulated node agent
 *   marking pods ready (status writes from this process), time until the deployment is Available;
 *   then a new image and the time until the rollout is complete (every pod replaced and ready).
 * - Many keys: SMALL deployments of one replica each, created at CONCURRENCY, and the time until every
 *   one is Available (pods marked ready as they come).
 * - An Indexed Job of 1,000 completions at parallelism 100 beside running as many pods by hand
 *   (indexed-job-phase.ts).
 * - Reconciles per second of each controller in each phase, from the controller manager's metrics,
 *   and CPU seconds of both processes.
 */
const REPLICAS = positiveFromEnv('CONTROLLERS_BENCH_REPLICAS', 1_000);
const CONCURRENCY = positiveFromEnv('CONTROLLERS_BENCH_CONCURRENCY', 32);
const QPS = positiveFromEnv('CONTROLLERS_BENCH_QPS', 1_000);
const SMALL = positiveFromEnv('CONTROLLERS_BENCH_SMALL_DEPLOYMENTS', 200);
const PHASE_TIMEOUT_MS = positiveFromEnv('CONTROLLERS_BENCH_TIMEOUT_SECONDS', 600) * 1000;
const NAMESPACE = 'bench-controllers';
const CONTROLLER_MANAGER_ENTRY = join(__dirname, '..', '..', 'apps', 'controller-manager', 'src', 'main.js');

const WRITE_VERBS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'DELETECOLLECTION']);

/** The API server's write requests so far (apiserver_request_total of the write verbs), per resource and subresource. */
async function serverWrites(client: Client): Promise<Map<string, number>> {
  const body = await client.rest.requestText({ method: 'GET', path: '/metrics', accept: 'text/plain' });
  const counts = new Map<string, number>();
  for (const line of body.split('\n')) {
    const m = /^apiserver_request_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const label = (name: string): string => new RegExp(`${name}="([^"]*)"`).exec(m[1])?.[1] ?? '';
    if (!WRITE_VERBS.has(label('verb')) || label('dry_run') !== '') continue;
    const what = label('subresource') ? `${label('resource')}/${label('subresource')}` : label('resource');
    counts.set(what, (counts.get(what) ?? 0) + Number(m[2]));
  }
  return counts;
}

const difference = (after: Map<string, number>, before: Map<string, number>): Map<string, number> =>
  new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as [string, number]).filter(([, v]) => v > 0));

const total = (counts: Map<string, number>): number => [...counts.values()].reduce((a, b) => a + b, 0);

/** controller_runtime_reconcile_total summed per controller. */
async function reconcileCounts(port: number): Promise<Map<string, number>> {
  const { body } = await probeGet(port, '/metrics');
  const counts = new Map<string, number>();
  for (const line of body.split('\n')) {
    const m = /^controller_runtime_reconcile_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const controller = /controller="([^"]+)"/.exec(m[1])?.[1] ?? '?';
    counts.set(controller, (counts.get(controller) ?? 0) + Number(m[2]));
  }
  return counts;
}

async function until(what: string, check: () => Promise<boolean>, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + PHASE_TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${PHASE_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function podTemplate(image: string): Pod {
  return { metadata: { labels: { app: 'bench' } }, spec: { containers: [{ name: 'app', image }] } };
}

type Phase = MeasuredPhase;

async function measure(name: string, server: RunningServer, cm: Child, cmPort: number, client: Client, work: () => Promise<void>): Promise<Phase> {
  const before = await reconcileCounts(cmPort);
  const writesBefore = await serverWrites(client);
  const cpu0 = [processCpuMicros(cm.pid) ?? 0, processCpuMicros(server.child.pid) ?? 0];
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  const cpu1 = [processCpuMicros(cm.pid) ?? 0, processCpuMicros(server.child.pid) ?? 0];
  const after = await reconcileCounts(cmPort);
  const writes = difference(await serverWrites(client), writesBefore);
  return { name, ms, reconciles: difference(after, before), writes, cmCpuMs: (cpu1[0] - cpu0[0]) / 1000, serverCpuMs: (cpu1[1] - cpu0[1]) / 1000 };
}

function deploymentDone(d: Deployment | undefined, image: string): boolean {
  const s = d?.status;
  return (
    d !== undefined &&
    d.spec.template.spec?.containers[0].image === image &&
    (s?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) &&
    s?.updatedReplicas === REPLICAS &&
    s?.replicas === REPLICAS &&
    s?.availableReplicas === REPLICAS
  );
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-controllers-'));
  let server: RunningServer | undefined;
  let cm: Child | undefined;
  let client: Client | undefined;
  let simulator: PodReadinessSimulator | undefined;
  try {
    console.log(
      `cores ${cpus().length}, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${REPLICAS} replicas, --svc-api-qps=${QPS}`,
    );
    server = await startApiServer(dir);
    const svcconfig = join(dir, 'svcconfig');
    client = new Client({ ...(await loadClientConfig({ svcconfig })), qps: -1 });
    const pods = client.pods.inNamespace(NAMESPACE);
    await client.namespaces.create({ metadata: { name: NAMESPACE } });

    // Reference: the same number of pods created by hand at fixed concurrency, before any controller runs.
    const template = podTemplate('nginx');
    const directCreateMs = await atConcurrency(REPLICAS, CONCURRENCY, async (i) => {
      await pods.create({ ...template, metadata: { name: `direct-${i}`, labels: { app: 'direct' } } });
    });
    const directDeleteMs = await atConcurrency(REPLICAS, CONCURRENCY, async (i) => {
      await pods.delete(`direct-${i}`);
    });

    const cmPort = await freePort();
    cm = startNodeChild(CONTROLLER_MANAGER_ENTRY, [
      `--svcconfig=${svcconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${cmPort}`,
      '--leader-elect=false',
      '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
      `--svc-api-qps=${QPS}`,
      `--svc-api-burst=${QPS * 2}`,
    ]);
    const running = cm;
    await until(
      'controller manager ready',
      async () => (await probeGet(cmPort, '/readyz').catch(() => ({ status: 0 }))).status === 200 || running.process.exitCode !== null,
    );
    if (cm.process.exitCode !== null) throw new Error(`the controller manager exited:\n${cm.output()}`);

    const deployments = client.deployments.inNamespace(NAMESPACE);
    const get = () => deployments.get('web');
    const toPods = await measure('deployment to pods', server, cm, cmPort, client, async () => {
      await deployments.create({
        metadata: { name: 'web' },
        spec: { replicas: REPLICAS, selector: { matchLabels: { app: 'bench' } }, template: podTemplate('nginx') },
      });
      await until(`${REPLICAS} pods`, async () => (await get()).status?.replicas === REPLICAS, 200);
    });
    const podCount = (await pods.list({ labelSelector: 'app=bench' })).items.length;

    simulator = await PodReadinessSimulator.start(client, { namespace: NAMESPACE, concurrency: CONCURRENCY });
    const toAvailable = await measure('pods ready to Available', server, cm, cmPort, client, async () => {
      await until('deployment available', async () => deploymentDone(await get(), 'nginx'), 200);
    });
    const rollout = await measure('rollout of a new image', server, cm, cmPort, client, async () => {
      await deployments.patch('web', { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } } }, 'strategic');
      await until('rollout complete', async () => deploymentDone(await get(), 'nginx:2'), 200);
    });

    const small = await measure(`${SMALL} deployments of 1 replica`, server, cm, cmPort, client, async () => {
      const many = client!.deployments.inNamespace(NAMESPACE);
      await atConcurrency(SMALL, CONCURRENCY, async (i) => {
        await many.create({
          metadata: { name: `small-${i}` },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: `small-${i}` } },
            template: { ...podTemplate('nginx'), metadata: { labels: { app: `small-${i}` } } },
          },
        });
      });
      await until(
        'small deployments available',
        async () => {
          const list = await many.list();
          return list.items.filter((d) => d.metadata?.name?.startsWith('small-') && d.status?.availableReplicas === 1).length === SMALL;
        },
        250,
      );
    });

    const perSecond = (count: number, ms: number) => (count / ms) * 1000;
    console.log(
      `reference: ${REPLICAS} direct pod creates in ${(directCreateMs / 1000).toFixed(2)} s (${perSecond(REPLICAS, directCreateMs).toFixed(0)}/s), deletes in ${(directDeleteMs / 1000).toFixed(2)} s`,
    );
    console.log(`pods present after the first phase: ${podCount}`);
    console.log('phase                          seconds  pods/s  vs direct  reconciles/s (per controller)                 CPU s (cm / server)');
    for (const phase of [toPods, toAvailable, rollout, small]) {
      const podsPerSecond = phase === toAvailable ? '' : perSecond(phase === rollout ? REPLICAS * 2 : phase === small ? SMALL : REPLICAS, phase.ms).toFixed(0);
      const reference =
        phase === toPods
          ? directCreateMs
          : phase === rollout
            ? directCreateMs + directDeleteMs
            : phase === small
              ? (directCreateMs * SMALL) / REPLICAS
              : undefined;
      const ratio = reference === undefined ? '' : `${(reference / phase.ms).toFixed(2)}x`;
      const reconciles = [...phase.reconciles].map(([k, v]) => `${k} ${perSecond(v, phase.ms).toFixed(1)}`).join(', ');
      console.log(
        `${phase.name.padEnd(30)} ${(phase.ms / 1000).toFixed(2).padStart(7)}  ${podsPerSecond.padStart(6)}  ${ratio.padStart(9)}  ${reconciles.padEnd(45)} ${(phase.cmCpuMs / 1000).toFixed(1)} / ${(phase.serverCpuMs / 1000).toFixed(1)}`,
      );
    }
    console.log(`simulated node agent status writes: ${simulator.written}`);
    // What a phase costs the API server in writes, beside the reference's one create per pod: with every
    // write about as dear as a pod create, the ratio above cannot pass one over the writes per pod.
    const perPod = (phase: Phase): number => (phase === small ? SMALL : phase === rollout ? REPLICAS * 2 : REPLICAS);
    for (const phase of [toPods, toAvailable, rollout, small]) {
      const byResource = [...phase.writes]
        .sort(([, a], [, b]) => b - a)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      const per = phase === toAvailable ? '' : ` (${(total(phase.writes) / perPod(phase)).toFixed(1)} per pod)`;
      console.log(`server writes, ${phase.name}: ${total(phase.writes)}${per}: ${byResource}`);
    }
    const measurePhase = (name: string, work: () => Promise<void>) => measure(name, server!, cm!, cmPort, client!, work);
    await runIndexedJobPhase(client, measurePhase);
    console.log(`controller manager resident memory at the end: ${memoryMiB(cm.pid)} MiB (${REPLICAS + SMALL} pods, ${SMALL + 1} deployments cached)`);
    console.log(
      'pods/s of the rollout counts creates and deletes; "vs direct" is the reference time (for the small deployments: creating as many pods) over the phase time (1.00x = as fast as creating the pods by hand).',
    );

    await runStatefulSetPhase({ client, concurrency: CONCURRENCY, timeoutMs: PHASE_TIMEOUT_MS });
  } finally {
    await simulator?.stop();
    client?.close();
    await cm?.stop();
    await server?.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

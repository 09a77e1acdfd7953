import type { Pod, StatefulSet } from '@svc/api';
import { isTransportError, type Client, type ResourceClient } from '@svc/client';
import { isAlreadyExists, isNotFound } from '@svc/machinery';
import { PodReadinessSimulator } from '@svc/node-simulation';
import { atConcurrency } from '../apiserver/at-concurrency';
import { positiveFromEnv } from '../support/env-number';

/**
 * The StatefulSet phase of the controllers benchmark, in a namespace of its own with its own
 * simulated node agent (a process-local informer marking each pod Running and Ready):
 * - reference: REPLICAS pods created directly at `concurrency` in flight, the time until all are
 *   ready; then the same pods replaced by hand one at a time from the highest ordinal (delete,
 *   create, wait until ready), which is what a StatefulSet rolling update does;
 * - a Parallel StatefulSet of REPLICAS: the time until all its pods are ready; then a new image, and
 *   the time until the rolling update is complete (every pod replaced, one at a time, and ready).
 * Ratios are the reference's time over the controller's (1.00x = as fast as by hand).
 */
const REPLICAS = positiveFromEnv('CONTROLLERS_BENCH_STATEFULSET_REPLICAS', 100);
const NAMESPACE = 'bench-statefulset';
/** How often the by-hand reference looks whether its pod is ready: short enough to add well under 1% per pod. */
const HAND_POLL_MS = 2;

export interface StatefulSetPhaseOptions {
  client: Client;
  concurrency: number;
  timeoutMs: number;
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>, intervalMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

const isReady = (pod: Pod | undefined) => pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

function pod(name: string, image: string): Pod {
  return { metadata: { name, labels: { app: 'direct-sts' } }, spec: { containers: [{ name: 'app', image }] } };
}

function statefulSet(image: string): StatefulSet {
  return {
    metadata: { name: 'web' },
    spec: {
      replicas: REPLICAS,
      podManagementPolicy: 'Parallel',
      serviceName: 'web',
      selector: { matchLabels: { app: 'sts' } },
      template: { metadata: { labels: { app: 'sts' } }, spec: { containers: [{ name: 'app', image }] } },
    },
  };
}

function rolledOut(set: StatefulSet | undefined, image: string): boolean {
  const s = set?.status;
  return (
    set !== undefined &&
    set.spec.template.spec?.containers[0].image === image &&
    (s?.observedGeneration ?? 0) >= (set.metadata?.generation ?? 1) &&
    s?.replicas === REPLICAS &&
    s.readyReplicas === REPLICAS &&
    s.updatedReplicas === REPLICAS &&
    s.currentRevision === s.updateRevision
  );
}

/**
 * A write of the reference, sent again once when the connection broke before an answer (a kept-alive
 * socket the server closed as it was reused): the reference's figure is not lost to a reset, and a
 * write that took effect the first time is taken as done.
 */
async function once(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!isTransportError(error)) throw error;
    try {
      await write();
    } catch (again) {
      if (!isAlreadyExists(again) && !isNotFound(again)) throw again;
    }
  }
}

const createPod = (pods: ResourceClient<Pod>, name: string, image: string) => once(() => pods.create(pod(name, image)));
const deletePod = (pods: ResourceClient<Pod>, name: string) => once(() => pods.delete(name, { gracePeriodSeconds: 0 }));

/** Runs the phase against a controller manager already running the statefulset controller, and prints its figures. */
export async function runStatefulSetPhase({ client, concurrency, timeoutMs }: StatefulSetPhaseOptions): Promise<void> {
  await client.namespaces.create({ metadata: { name: NAMESPACE } });
  const pods = client.pods.inNamespace(NAMESPACE);
  const sets = client.statefulSets.inNamespace(NAMESPACE);
  const simulator = await PodReadinessSimulator.start(client, { namespace: NAMESPACE, concurrency });
  try {
    const readyCount = async (selector: string) => (await pods.list({ labelSelector: selector })).items.filter(isReady).length;

    const get = () => sets.get('web');
    // Reference, scale-up: the pods created directly, until all are ready.
    let started = performance.now();
    await atConcurrency(REPLICAS, concurrency, async (i) => {
      await createPod(pods, `direct-${i}`, 'nginx');
    });
    const directCreateMs = performance.now() - started;
    await until('direct pods ready', timeoutMs, async () => (await readyCount('app=direct-sts')) === REPLICAS, 20);
    const directUpMs = performance.now() - started;

    // Reference, rolling update: each pod replaced by hand, highest first, the next once it is ready.
    started = performance.now();
    for (let i = REPLICAS - 1; i >= 0; i--) {
      await deletePod(pods, `direct-${i}`);
      await createPod(pods, `direct-${i}`, 'nginx:2');
      await until(`direct-${i} ready`, timeoutMs, async () => isReady(await pods.get(`direct-${i}`)), HAND_POLL_MS);
    }
    const directRollMs = performance.now() - started;
    await atConcurrency(REPLICAS, concurrency, async (i) => {
      await deletePod(pods, `direct-${i}`);
    });

    started = performance.now();
    await sets.create(statefulSet('nginx'));
    // Its status counts them: a GET, where listing the pods would load the server the controller writes to.
    await until(`${REPLICAS} pods of the StatefulSet`, timeoutMs, async () => (await get()).status?.replicas === REPLICAS, 20);
    const setCreateMs = performance.now() - started;
    await until('StatefulSet ready', timeoutMs, async () => rolledOut(await get(), 'nginx'), 20);
    const setUpMs = performance.now() - started;

    started = performance.now();
    await sets.patch('web', { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } } }, 'strategic');
    await until('StatefulSet rolled out', timeoutMs, async () => rolledOut(await get(), 'nginx:2'), 20);
    const setRollMs = performance.now() - started;

    const line = (what: string, reference: number, controller: number) =>
      console.log(
        `${what.padEnd(44)} by hand ${(reference / 1000).toFixed(2).padStart(6)} s  controller ${(controller / 1000).toFixed(2).padStart(6)} s  ${(reference / controller).toFixed(2)}x`,
      );
    console.log(`StatefulSet of ${REPLICAS} (Parallel), pods marked ready by a simulated node agent (${simulator.written} status writes):`);
    line(`${REPLICAS} pods created`, directCreateMs, setCreateMs);
    line(`${REPLICAS} pods created and ready`, directUpMs, setUpMs);
    line(`rolling update, one pod at a time`, directRollMs, setRollMs);
    console.log('"by hand": this process creates the pods at the same concurrency, and replaces them one by one polling each until ready.');
  } finally {
    await simulator.stop();
  }
}

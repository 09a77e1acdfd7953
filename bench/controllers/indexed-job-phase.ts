import type { Job, Pod } from '@svc/api';
import type { Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { listerWatcherFor, RateLimitingQueue, runQueueWorker, SharedInformerFactory } from '@svc/informers';
import { positiveFromEnv } from '../support/env-number';

const COMPLETIONS = positiveFromEnv('CONTROLLERS_BENCH_JOB_COMPLETIONS', 1_000);
const PARALLELISM = positiveFromEnv('CONTROLLERS_BENCH_JOB_PARALLELISM', 100);
const NAMESPACE = 'bench-jobs';

/** What the controller bench measures of a phase: its time and the API server's writes during it. */
export interface MeasuredPhase {
  name: string;
  ms: number;
  writes: Map<string, number>;
  reconciles: Map<string, number>;
  cmCpuMs: number;
  serverCpuMs: number;
}

export type Measure = (name: string, work: () => Promise<void>) => Promise<MeasuredPhase>;

/**
 * A simulated node agent that runs every pod of the namespace to completion at once: phase
 * Succeeded with a container that exited 0, written through the status subresource as a node agent
 * would. `completed(name)` resolves once it has written that pod's end.
 */
class PodCompleter {
  private readonly factory = new SharedInformerFactory();
  private readonly queue = new RateLimitingQueue<string>();
  private readonly waiting = new Map<string, () => void>();
  private readonly done = new Set<string>();
  private workers: Promise<void>[] = [];
  written = 0;

  constructor(
    private readonly client: Client,
    private readonly concurrency: number,
  ) {}

  async start(): Promise<void> {
    const informer = this.factory.informerFor<Pod>({ resource: 'v1/pods', namespace: NAMESPACE }, () =>
      listerWatcherFor(this.client.pods, { namespace: NAMESPACE }),
    );
    this.factory.start();
    await this.factory.waitForCacheSync(30_000);
    const enqueue = (pod: Pod) => {
      if (!pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') this.queue.add(pod.metadata?.name ?? '');
    };
    informer.addEventHandler({ onAdd: enqueue, onUpdate: (_, pod) => enqueue(pod) });
    this.workers = Array.from({ length: this.concurrency }, () =>
      runQueueWorker(
        this.queue,
        (name) => this.complete(name),
        (error) => !isNotFound(error),
      ),
    );
  }

  completed(name: string): Promise<void> {
    if (this.done.has(name)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(name, resolve));
  }

  private async complete(name: string): Promise<void> {
    if (this.done.has(name)) return;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await this.client.pods.patchStatus(
      name,
      {
        status: {
          phase: 'Succeeded',
          startTime: now,
          conditions: [{ type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: now }],
          containerStatuses: [
            {
              name: 'app',
              image: 'bench',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: now } },
            },
          ],
        },
      },
      'merge',
      { namespace: NAMESPACE },
    );
    this.written++;
    this.done.add(name);
    this.waiting.get(name)?.();
    this.waiting.delete(name);
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.workers);
    await this.factory.shutdown();
  }
}

const perPod = (writes: Map<string, number>): string =>
  [...writes]
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k} ${(v / COMPLETIONS).toFixed(2)}`)
    .join(', ');

/**
 * An Indexed Job of COMPLETIONS completions at PARALLELISM, its pods run to completion by a
 * simulated node agent, beside the same work done by hand: PARALLELISM clients each creating a pod
 * and waiting for it to succeed before the next, COMPLETIONS pods in all. The ratio is the direct
 * time over the Job's (1.00x: the controller adds nothing to running the pods by hand).
 */
export async function runIndexedJobPhase(client: Client, measure: Measure): Promise<void> {
  await client.namespaces.create({ metadata: { name: NAMESPACE } });
  const completer = new PodCompleter(client, 16);
  await completer.start();
  try {
    const pods = client.pods.inNamespace(NAMESPACE);
    let next = 0;
    const direct = await measure(`${COMPLETIONS} pods by hand, ${PARALLELISM} at a time`, async () => {
      const worker = async (): Promise<void> => {
        while (next < COMPLETIONS) {
          const name = `direct-${next++}`;
          await pods.create({ metadata: { name, labels: { run: 'direct' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'bench' }] } });
          await completer.completed(name);
        }
      };
      await Promise.all(Array.from({ length: PARALLELISM }, worker));
    });

    const jobs = client.jobs.inNamespace(NAMESPACE);
    const job = await measure(`Indexed Job of ${COMPLETIONS} at parallelism ${PARALLELISM}`, async () => {
      await jobs.create({
        metadata: { name: 'indexed' },
        spec: {
          completions: COMPLETIONS,
          parallelism: PARALLELISM,
          completionMode: 'Indexed',
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'bench' }] } },
        },
      });
      const deadline = Date.now() + 600_000;
      for (;;) {
        const current: Job = await jobs.get('indexed');
        if (current.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')) break;
        if (Date.now() > deadline) throw new Error(`the Job did not complete within 600 s: ${JSON.stringify(current.status)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
    const finished = await jobs.get('indexed');
    const total = (writes: Map<string, number>) => [...writes.values()].reduce((a, b) => a + b, 0);
    console.log(`indexed job: ${COMPLETIONS} completions at parallelism ${PARALLELISM}, pods run to completion by a simulated node agent`);
    for (const phase of [direct, job]) {
      const reconciles = [...phase.reconciles].map(([k, v]) => `${k} ${v}`).join(', ');
      console.log(
        `  ${phase.name.padEnd(44)} ${(phase.ms / 1000).toFixed(2).padStart(7)} s  ${((COMPLETIONS / phase.ms) * 1000).toFixed(0).padStart(5)} pods/s  CPU s (cm / server) ${(phase.cmCpuMs / 1000).toFixed(1)} / ${(phase.serverCpuMs / 1000).toFixed(1)}${reconciles ? `  reconciles: ${reconciles}` : ''}`,
      );
      console.log(`    server writes ${total(phase.writes)} (${(total(phase.writes) / COMPLETIONS).toFixed(2)} per pod: ${perPod(phase.writes)})`);
    }
    console.log(
      `  Job vs by hand: ${(direct.ms / job.ms).toFixed(2)}x (by-hand time over the Job's); status succeeded ${finished.status?.succeeded}, completedIndexes ${finished.status?.completedIndexes}`,
    );
  } finally {
    await completer.stop();
  }
}

import type { Pod } from '@svc/api';
import type { Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { listerWatcherFor, RateLimitingQueue, runQueueWorker, SharedInformerFactory, type SharedInformer } from '@svc/informers';

export interface PodReadinessSimulatorOptions {
  /** Only pods of this namespace; all by default. */
  namespace?: string;
  /** Whether a pod should be ready; every pod by default. Changed later with `setReadiness`. */
  ready?: (pod: Pod) => boolean;
  /** Status writes in flight at once. Default 8. */
  concurrency?: number;
}

/**
 * Plays a node agent's part for tests and benchmarks while none runs pods: every pod gets
 * `phase: Running`, a pod IP, running container statuses and a `Ready` condition (True, or False
 * where `ready` says so),
 * written through the status subresource as a node agent would. Pods being deleted are left alone.
 */
export class PodReadinessSimulator {
  private readonly factory = new SharedInformerFactory();
  private readonly informer: SharedInformer<Pod>;
  private readonly queue = new RateLimitingQueue<string>();
  private readonly ips = new Map<string, string>();
  private ready: (pod: Pod) => boolean;
  private nextIp = 1;
  private workers: Promise<void>[] = [];
  /** Status writes made so far. */
  written = 0;

  private constructor(
    private readonly client: Client,
    private readonly options: PodReadinessSimulatorOptions,
  ) {
    this.ready = options.ready ?? (() => true);
    const namespace = options.namespace;
    this.informer = this.factory.informerFor<Pod>({ resource: 'v1/pods', namespace }, () => listerWatcherFor(client.pods, { namespace }));
  }

  static async start(client: Client, options: PodReadinessSimulatorOptions = {}): Promise<PodReadinessSimulator> {
    const simulator = new PodReadinessSimulator(client, options);
    await simulator.run();
    return simulator;
  }

  /** Changes which pods should be ready, and brings every pod in line with it. */
  setReadiness(ready: (pod: Pod) => boolean): void {
    this.ready = ready;
    for (const pod of this.informer.lister().list()) this.queue.add(keyOf(pod));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.workers);
    await this.factory.shutdown();
  }

  private async run(): Promise<void> {
    this.factory.start();
    await this.factory.waitForCacheSync(30_000);
    const enqueue = (pod: Pod) => this.queue.add(keyOf(pod));
    this.informer.addEventHandler({ onAdd: enqueue, onUpdate: (_, pod) => enqueue(pod), onDelete: (pod) => void this.ips.delete(keyOf(pod)) });
    this.workers = Array.from({ length: this.options.concurrency ?? 8 }, () => this.work());
  }

  private work(): Promise<void> {
    // A pod gone meanwhile needs nothing more.
    return runQueueWorker(
      this.queue,
      (key) => this.sync(key),
      (error) => !isNotFound(error),
    );
  }

  private async sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const pod = this.informer
      .lister()
      .namespace(key.slice(0, slash))
      .get(key.slice(slash + 1));
    if (!pod || pod.metadata?.deletionTimestamp) return;
    const want = this.ready(pod) ? 'True' : 'False';
    const current = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    if (current === want && pod.status?.podIP) return;
    let ip = pod.status?.podIP ?? this.ips.get(key);
    if (!ip) {
      const n = this.nextIp++;
      ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
      this.ips.set(key, ip);
    }
    const now = new Date().toISOString();
    await this.client.pods.patchStatus(
      pod.metadata!.name!,
      {
        status: {
          phase: 'Running',
          podIP: ip,
          podIPs: [{ ip }],
          startTime: pod.status?.startTime ?? now,
          conditions: [{ type: 'Ready', status: want, lastTransitionTime: now }],
          containerStatuses: pod.spec.containers.map((c) => ({
            name: c.name,
            image: c.image,
            ready: want === 'True',
            started: true,
            restartCount: 0,
            state: { running: { startedAt: pod.status?.startTime ?? now } },
          })),
        },
      },
      'merge',
      { namespace: pod.metadata!.namespace },
    );
    this.written++;
  }
}

function keyOf(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

import type { Pod, PodCondition } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound } from '@svc/client';
import { isNotFound, metaTime } from '@svc/machinery';
import type { ControllerManagerOptions } from '@svc/options';
import { consoleControllerLogger, Runnable, type CacheReader, type RunContext } from '@svc/runtime';

/** How often the collector looks (Kubernetes' gcCheckPeriod). */
export const POD_GC_PERIOD_MS = 20_000;
/** How long a node missing from the cache is given to show up before the server is asked (Kubernetes' quarantineTime). */
export const NODE_QUARANTINE_MS = 40_000;

/** What the pod garbage collector takes from the flags, and its periods (shorter in tests). */
export class PodGcOptions {
  constructor(
    /** `--terminated-pod-gc-threshold`: finished pods kept; 0 or less keeps them all. */
    readonly terminatedPodThreshold: number,
    readonly periodMs = POD_GC_PERIOD_MS,
    readonly quarantineMs = NODE_QUARANTINE_MS,
  ) {}

  static fromFlags(flags: Pick<ControllerManagerOptions, 'terminatedPodGcThreshold'>): PodGcOptions {
    return new PodGcOptions(flags.terminatedPodGcThreshold);
  }
}

function terminated(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** Evicted pods go first, then the oldest (Kubernetes' byEvictionAndCreationTimestamp). */
function byEvictionAndAge(a: Pod, b: Pod): number {
  const evicted = (p: Pod) => (p.status?.reason === 'Evicted' ? 0 : 1);
  if (evicted(a) !== evicted(b)) return evicted(a) - evicted(b);
  const at = (p: Pod) => Date.parse(p.metadata?.creationTimestamp ?? '') || 0;
  if (at(a) !== at(b)) return at(a) - at(b);
  return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1;
}

/**
 * Kubernetes' pod garbage collector: every period it deletes finished pods beyond the threshold (the
 * oldest first), pods bound to a node that no longer exists (after the node stayed missing through the
 * quarantine and the server confirmed it gone), and pods being deleted that were never bound. Each
 * deletion is forced (grace period 0): no node agent is left to do it.
 */
@Runnable({ name: 'podgc', reads: [BUILTIN_RESOURCES.pods, BUILTIN_RESOURCES.nodes] })
export class PodGarbageCollector implements Runnable {
  /** Nodes missing from the cache, with when they were first missed. */
  private readonly missing = new Map<string, number>();
  private readonly logger = consoleControllerLogger;
  /** Pods deleted so far. */
  deleted = 0;

  constructor(
    private readonly client: Client,
    private readonly options: PodGcOptions,
  ) {}

  async run(signal: AbortSignal, { cache }: RunContext): Promise<void> {
    while (!signal.aborted) {
      await this.collect(cache).catch((error: unknown) => this.logger.error('pod garbage collection failed', error));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.options.periodMs);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** One pass (Kubernetes' gc) over what the cache shows. */
  async collect(cache: CacheReader): Promise<void> {
    const pods = cache.list(BUILTIN_RESOURCES.pods);
    if (this.options.terminatedPodThreshold > 0) await this.collectTerminated(pods);
    await this.collectOrphaned(cache, pods);
    await this.collectUnscheduledTerminating(pods);
  }

  private async collectTerminated(pods: readonly Pod[]): Promise<void> {
    const finished = pods.filter(terminated);
    const excess = finished.length - this.options.terminatedPodThreshold;
    if (excess <= 0) return;
    const doomed = [...finished].sort(byEvictionAndAge).slice(0, excess);
    for (const pod of doomed) await this.delete(pod);
  }

  private async collectOrphaned(cache: CacheReader, pods: readonly Pod[]): Promise<void> {
    const now = Date.now();
    const present = (name: string) => cache.get(BUILTIN_RESOURCES.nodes, { name }) !== undefined;
    for (const pod of pods) {
      const node = pod.spec.nodeName;
      if (node && !present(node) && !this.missing.has(node)) this.missing.set(node, now);
    }
    const gone = new Set<string>();
    for (const [node, since] of [...this.missing]) {
      if (present(node)) {
        this.missing.delete(node);
        continue;
      }
      if (now - since < this.options.quarantineMs) continue;
      this.missing.delete(node);
      try {
        await this.client.nodes.get(node);
      } catch (error) {
        if (isNotFound(error)) gone.add(node);
        else throw error;
      }
    }
    if (gone.size === 0) return;
    for (const pod of pods) {
      if (!gone.has(pod.spec.nodeName ?? '')) continue;
      await this.delete(pod, { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
    }
  }

  private async collectUnscheduledTerminating(pods: readonly Pod[]): Promise<void> {
    for (const pod of pods) if (pod.metadata?.deletionTimestamp && !pod.spec.nodeName) await this.delete(pod);
  }

  /** Kubernetes' markFailedAndDeletePodWithCondition: an unfinished pod is marked Failed (with the condition) first. */
  private async delete(pod: Pod, condition?: PodCondition): Promise<void> {
    const meta = pod.metadata ?? {};
    const namespace = meta.namespace ?? '';
    const name = meta.name ?? '';
    try {
      if (!terminated(pod)) {
        const status: Record<string, unknown> = { phase: 'Failed' };
        if (condition) status.conditions = [{ ...condition, lastTransitionTime: metaTime(Date.now()) }];
        await this.client.pods.patchStatus(name, { status }, 'strategic', { namespace });
      }
      await this.client.pods.delete(name, { namespace, gracePeriodSeconds: 0, preconditions: { uid: meta.uid } });
      this.deleted++;
    } catch (error) {
      ignoreNotFound(error);
    }
  }
}

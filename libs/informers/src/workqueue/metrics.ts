import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { QueueClock } from './clock';

/** The Prometheus names of the work queue metrics, as client-go's workqueue exports them. */
export const WORKQUEUE_METRIC_NAMES = {
  depth: 'workqueue_depth',
  adds: 'workqueue_adds_total',
  queueDuration: 'workqueue_queue_duration_seconds',
  workDuration: 'workqueue_work_duration_seconds',
  unfinishedWork: 'workqueue_unfinished_work_seconds',
  longestRunningProcessor: 'workqueue_longest_running_processor_seconds',
  retries: 'workqueue_retries_total',
} as const;

/** What a queue reports about itself; keys are passed by identity. */
export interface QueueMetrics {
  add(id: unknown): void;
  get(id: unknown): void;
  done(id: unknown): void;
  retry(): void;
  /** The queue shut down: stop refreshing its in-progress gauges. */
  close(): void;
}

const noMetrics: QueueMetrics = {
  add: () => undefined,
  get: () => undefined,
  done: () => undefined,
  retry: () => undefined,
  close: () => undefined,
};

type Label = 'name';

/** One set of metric families per registry, shared by every queue registered on it. */
class WorkQueueFamilies {
  readonly depth: Gauge<Label>;
  readonly adds: Counter<Label>;
  readonly queueDuration: Histogram<Label>;
  readonly workDuration: Histogram<Label>;
  readonly unfinishedWork: Gauge<Label>;
  readonly longestRunningProcessor: Gauge<Label>;
  readonly retries: Counter<Label>;
  readonly live = new Set<NamedQueueMetrics>();

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames = ['name'] as const;
    // client-go's buckets, 10 ns to 10 s by powers of ten, written out because repeated
    // multiplication gives bounds such as 0.000009999999999999999.
    const buckets = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];
    this.depth = new Gauge({
      name: WORKQUEUE_METRIC_NAMES.depth,
      help: 'Current depth of workqueue',
      labelNames,
      registers,
    });
    this.adds = new Counter({
      name: WORKQUEUE_METRIC_NAMES.adds,
      help: 'Total number of adds handled by workqueue',
      labelNames,
      registers,
    });
    this.queueDuration = new Histogram({
      name: WORKQUEUE_METRIC_NAMES.queueDuration,
      help: 'How long in seconds an item stays in workqueue before being requested.',
      labelNames,
      buckets,
      registers,
    });
    this.workDuration = new Histogram({
      name: WORKQUEUE_METRIC_NAMES.workDuration,
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames,
      buckets,
      registers,
    });
    // The two in-progress gauges are computed when scraped, which replaces client-go's 500 ms ticker
    // and keeps an idle queue free of timers.
    this.unfinishedWork = new Gauge({
      name: WORKQUEUE_METRIC_NAMES.unfinishedWork,
      help:
        "How many seconds of work has been done that is in progress and hasn't been observed by " +
        'work_duration. Large values indicate stuck threads. One can deduce the number of stuck ' +
        'threads by observing the rate at which this increases.',
      labelNames,
      registers,
      collect: () => {
        for (const queue of this.live) queue.refreshUnfinishedWork();
      },
    });
    this.longestRunningProcessor = new Gauge({
      name: WORKQUEUE_METRIC_NAMES.longestRunningProcessor,
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames,
      registers,
      collect: () => {
        for (const queue of this.live) queue.refreshLongestRunningProcessor();
      },
    });
    this.retries = new Counter({
      name: WORKQUEUE_METRIC_NAMES.retries,
      help: 'Total number of retries handled by workqueue',
      labelNames,
      registers,
    });
  }
}

const familiesByRegistry = new WeakMap<Registry, WorkQueueFamilies>();

function familiesOf(registry: Registry): WorkQueueFamilies {
  let families = familiesByRegistry.get(registry);
  if (!families) {
    families = new WorkQueueFamilies(registry);
    familiesByRegistry.set(registry, families);
  }
  return families;
}

class NamedQueueMetrics implements QueueMetrics {
  private readonly labels: Record<Label, string>;
  private readonly addTimes = new Map<unknown, number>();
  private readonly processingStartTimes = new Map<unknown, number>();

  constructor(
    name: string,
    private readonly families: WorkQueueFamilies,
    private readonly clock: QueueClock,
  ) {
    this.labels = { name };
    // Series exist from the start at zero, so a dashboard tells an idle queue from a missing one.
    families.depth.inc(this.labels, 0);
    families.adds.inc(this.labels, 0);
    families.retries.inc(this.labels, 0);
    families.queueDuration.zero(this.labels);
    families.workDuration.zero(this.labels);
    families.unfinishedWork.set(this.labels, 0);
    families.longestRunningProcessor.set(this.labels, 0);
    families.live.add(this);
  }

  add(id: unknown): void {
    this.families.adds.inc(this.labels);
    this.families.depth.inc(this.labels);
    if (!this.addTimes.has(id)) this.addTimes.set(id, this.clock.now());
  }

  get(id: unknown): void {
    const now = this.clock.now();
    this.families.depth.dec(this.labels);
    this.processingStartTimes.set(id, now);
    const addedAt = this.addTimes.get(id);
    if (addedAt !== undefined) {
      this.families.queueDuration.observe(this.labels, seconds(now - addedAt));
      this.addTimes.delete(id);
    }
  }

  done(id: unknown): void {
    const startedAt = this.processingStartTimes.get(id);
    if (startedAt !== undefined) {
      this.families.workDuration.observe(this.labels, seconds(this.clock.now() - startedAt));
      this.processingStartTimes.delete(id);
    }
  }

  retry(): void {
    this.families.retries.inc(this.labels);
  }

  close(): void {
    this.families.live.delete(this);
  }

  refreshUnfinishedWork(): void {
    const now = this.clock.now();
    let total = 0;
    for (const startedAt of this.processingStartTimes.values()) total += seconds(now - startedAt);
    this.families.unfinishedWork.set(this.labels, total);
  }

  refreshLongestRunningProcessor(): void {
    const now = this.clock.now();
    let oldest = 0;
    for (const startedAt of this.processingStartTimes.values()) {
      oldest = Math.max(oldest, seconds(now - startedAt));
    }
    this.families.longestRunningProcessor.set(this.labels, oldest);
  }
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}

/**
 * Metrics for one queue: recorded only when the queue has a name and a registry to record on, as
 * client-go records nothing for an unnamed queue. Queues sharing a registry share the metric
 * families and differ by the `name` label, so names should be unique per registry.
 */
export function createQueueMetrics(name: string | undefined, registry: Registry | undefined, clock: QueueClock): QueueMetrics {
  if (!name || !registry) return noMetrics;
  return new NamedQueueMetrics(name, familiesOf(registry), clock);
}

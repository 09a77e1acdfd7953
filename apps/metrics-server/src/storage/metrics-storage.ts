import type { MetricsBatch, MetricsPoint, PodMetricsPoint } from './metrics-point';

/** CPU in nanocores and memory in bytes over a window, as the metrics API answers it. */
export interface ResourceUsage {
  cpuNanoCores: number;
  memoryBytes: number;
  /** The later reading's time (ms). */
  timestamp: number;
  windowMs: number;
}

/** A container started less than this before its first reading is not given a rate from its start: too short a window. */
const FRESH_CONTAINER_MIN_MS = 10_000;

/** The rate between two readings of the same node or container; undefined when the counters went back. */
export function resourceUsage(last: MetricsPoint, prev: MetricsPoint): ResourceUsage | undefined {
  if (last.startTime < prev.startTime || last.cumulativeCpuNanos < prev.cumulativeCpuNanos) return undefined;
  const windowMs = last.timestamp - prev.timestamp;
  if (windowMs <= 0) return undefined;
  return {
    cpuNanoCores: Math.floor(((last.cumulativeCpuNanos - prev.cumulativeCpuNanos) * 1000) / windowMs),
    memoryBytes: last.memoryBytes,
    timestamp: last.timestamp,
    windowMs,
  };
}

/**
 * The last two readings of every node and container, as metrics-server keeps them: a new batch moves
 * a reading to `prev` only when the new one is later; a container that restarted since loses its
 * previous reading; a container younger than the resolution (but at least 10 s old) gets a reading at
 * its start with no CPU, so it has a rate after one scrape.
 */
export class MetricsStorage {
  private lastNodes = new Map<string, MetricsPoint>();
  private prevNodes = new Map<string, MetricsPoint>();
  private lastPods = new Map<string, PodMetricsPoint>();
  private prevPods = new Map<string, PodMetricsPoint>();

  constructor(private readonly resolutionMs: number) {}

  /** Whether any node has two readings (the server is ready, as metrics-server's readiness says). */
  get ready(): boolean {
    return this.prevNodes.size > 0;
  }

  store(batch: MetricsBatch): void {
    const lastNodes = new Map<string, MetricsPoint>();
    const prevNodes = new Map<string, MetricsPoint>();
    for (const [name, point] of batch.nodes) {
      lastNodes.set(name, point);
      const last = this.lastNodes.get(name);
      if (!last) continue;
      if (point.timestamp > last.timestamp) prevNodes.set(name, last);
      else {
        const prev = this.prevNodes.get(name);
        if (prev && prev.timestamp < point.timestamp) prevNodes.set(name, prev);
      }
    }
    const lastPods = new Map<string, PodMetricsPoint>();
    const prevPods = new Map<string, PodMetricsPoint>();
    for (const [key, pod] of batch.pods) {
      const newPrev: PodMetricsPoint = { containers: new Map() };
      for (const [name, point] of pod.containers) {
        const age = point.timestamp - point.startTime;
        if (point.startTime > 0 && point.startTime < point.timestamp && age < this.resolutionMs && age >= FRESH_CONTAINER_MIN_MS) {
          newPrev.containers.set(name, { ...point, timestamp: point.startTime, cumulativeCpuNanos: 0 });
          continue;
        }
        const last = this.lastPods.get(key)?.containers.get(name);
        // A container that started after the stored reading is a new one: its old reading means nothing.
        if (!last || !(point.startTime < last.timestamp)) continue;
        if (point.timestamp > last.timestamp) newPrev.containers.set(name, last);
        else {
          const prev = this.prevPods.get(key)?.containers.get(name);
          if (prev && prev.timestamp < point.timestamp) newPrev.containers.set(name, prev);
        }
      }
      if (newPrev.containers.size > 0) prevPods.set(key, newPrev);
      lastPods.set(key, pod);
    }
    this.lastNodes = lastNodes;
    this.prevNodes = prevNodes;
    this.lastPods = lastPods;
    this.prevPods = prevPods;
  }

  /** A node's usage, when it has two readings. */
  nodeUsage(name: string): ResourceUsage | undefined {
    const last = this.lastNodes.get(name);
    const prev = this.prevNodes.get(name);
    return last && prev ? resourceUsage(last, prev) : undefined;
  }

  /**
   * A pod's containers' usage and the earliest of their times, when every container has two readings
   * (a pod with one container still missing is not answered, as metrics-server does).
   */
  podUsage(namespace: string, name: string): { containers: Array<{ name: string; usage: ResourceUsage }>; timestamp: number; windowMs: number } | undefined {
    const key = `${namespace}/${name}`;
    const last = this.lastPods.get(key);
    const prev = this.prevPods.get(key);
    if (!last || !prev) return undefined;
    const containers: Array<{ name: string; usage: ResourceUsage }> = [];
    let earliest: ResourceUsage | undefined;
    for (const [container, point] of last.containers) {
      const before = prev.containers.get(container);
      if (!before) return undefined;
      const usage = resourceUsage(point, before);
      if (!usage) continue;
      containers.push({ name: container, usage });
      if (!earliest || usage.timestamp < earliest.timestamp) earliest = usage;
    }
    containers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { containers, timestamp: earliest?.timestamp ?? Date.now(), windowMs: earliest?.windowMs ?? 0 };
  }
}

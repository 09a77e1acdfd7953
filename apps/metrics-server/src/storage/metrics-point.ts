/** A reading of one node or container at one time. */
export interface MetricsPoint {
  /** When the container (or node) started (ms since the epoch); 0 when unknown. */
  startTime: number;
  /** When the reading was taken (ms since the epoch): the CPU reading's time. */
  timestamp: number;
  /** CPU consumed since the start, in nanocore-seconds. */
  cumulativeCpuNanos: number;
  /** The memory working set, in bytes. */
  memoryBytes: number;
}

/** One pod's containers' readings, by container name. */
export interface PodMetricsPoint {
  containers: Map<string, MetricsPoint>;
}

/** What one scrape of one node agent gave: the node's reading and each pod's, by `namespace/name`. */
export interface MetricsBatch {
  nodes: Map<string, MetricsPoint>;
  pods: Map<string, PodMetricsPoint>;
}

export function podKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

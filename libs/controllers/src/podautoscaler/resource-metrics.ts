import { quantityMilliValue } from '@svc/api';
import { parseGoDuration } from '@svc/machinery';
import type { PodMetrics } from './pod-metrics-source';

/** One pod's usage of a resource, in thousandths, with when and over how long it was measured. */
export interface PodMetric {
  timestampMs: number;
  windowMs: number;
  value: number;
}

/** Usage by pod name (Kubernetes' PodMetricsInfo). */
export type PodMetricsInfo = Map<string, PodMetric>;

function windowMs(window: string): number {
  try {
    return parseGoDuration(window) / 1e6;
  } catch {
    return 0;
  }
}

/**
 * Kubernetes' resource metrics client: each pod's usage of `resource`, summed over its containers (a
 * pod missing the resource in any container is left out), or of one container (every pod must list
 * that container). Throws the client's messages when there is nothing to read.
 */
export function resourceMetricsOf(items: readonly PodMetrics[], resource: string, container: string): { metrics: PodMetricsInfo; timestampMs: number } {
  if (items.length === 0) throw new Error('no metrics returned from resource metrics API');
  const metrics: PodMetricsInfo = new Map();
  for (const m of items) {
    const base = { timestampMs: Date.parse(m.timestamp), windowMs: windowMs(m.window) };
    if (container !== '') {
      const c = m.containers.find((x) => x.name === container);
      if (c === undefined)
        throw new Error(
          `failed to get container metrics: container ${container} not present in metrics for pod ${m.metadata.namespace ?? ''}/${m.metadata.name}`,
        );
      const value = quantityMilliValue(c.usage?.[resource]);
      if (value !== undefined) metrics.set(m.metadata.name, { ...base, value });
      continue;
    }
    let sum = 0;
    let missing = m.containers.length === 0;
    for (const c of m.containers) {
      const value = quantityMilliValue(c.usage?.[resource]);
      if (value === undefined) {
        missing = true;
        break;
      }
      sum += value;
    }
    if (!missing) metrics.set(m.metadata.name, { ...base, value: sum });
  }
  return { metrics, timestampMs: Date.parse(items[0].timestamp) };
}

/**
 * Kubernetes' GetResourceUtilizationRatio: usage over requests of the pods that have both, as a
 * whole percentage (truncated), its ratio to the target, and the average raw usage.
 */
export function resourceUtilizationRatio(
  metrics: PodMetricsInfo,
  requests: ReadonlyMap<string, number>,
  targetUtilization: number,
): { ratio: number; utilization: number; rawAverage: number } {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let entities = 0;
  for (const [pod, metric] of metrics) {
    const request = requests.get(pod);
    // A metric without a request is an extraneous metric; missing requests are caught elsewhere.
    if (request === undefined) continue;
    metricsTotal += metric.value;
    requestsTotal += request;
    entities++;
  }
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / targetUtilization, utilization, rawAverage: Math.trunc(metricsTotal / entities) };
}

/** Kubernetes' GetMetricUsageRatio: the average usage (truncated) and its ratio to the target. */
export function metricUsageRatio(metrics: PodMetricsInfo, targetUsage: number): { ratio: number; usage: number } {
  let total = 0;
  for (const metric of metrics.values()) total += metric.value;
  const usage = Math.trunc(total / metrics.size);
  return { ratio: usage / targetUsage, usage };
}

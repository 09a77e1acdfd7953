import { PrometheusText, type Sample } from './prometheus-text';
import type { NodeSnapshot } from './stats-provider';

const NANOS = 1e9;

/**
 * `/metrics/resource`, as the kubelet's resource metrics collector writes it (Kubernetes 1.32): the
 * node's, each pod's and each running container's cumulative CPU in core-seconds and working set in
 * bytes, stamped with the time they were read (what metrics-server takes rates over), the containers'
 * start times, and `resource_scrape_error` (1 when the stats could not be read; then nothing else).
 * `scrape_error`, deprecated in 1.29, is hidden in 1.32 and not written.
 */
export function resourceMetrics(node: NodeSnapshot | undefined): string {
  const text = new PrometheusText();
  if (!node) {
    text.family('resource_scrape_error', 'gauge', '[STABLE] 1 if there was an error while getting container metrics, 0 otherwise', [{ value: 1 }]);
    return text.toString();
  }
  const cpu = node.usage?.sample.cpu;
  const memory = node.usage?.sample.memory;
  const containerStart: Sample[] = [];
  const containerCpu: Sample[] = [];
  const containerMemory: Sample[] = [];
  const containerSwap: Sample[] = [];
  const podCpu: Sample[] = [];
  const podMemory: Sample[] = [];
  const podSwap: Sample[] = [];
  for (const pod of node.pods) {
    for (const c of pod.containers) {
      const labels = { container: c.name, namespace: pod.namespace, pod: pod.name };
      if (c.startTime > 0) containerStart.push({ labels, value: c.startTime / 1000 });
      const sample = c.usage?.sample;
      if (sample?.cpu) containerCpu.push({ labels, value: sample.cpu.usageNanos / NANOS, timestamp: sample.time });
      if (sample?.memory) containerMemory.push({ labels, value: sample.memory.workingSet, timestamp: sample.time });
      if (sample?.memory?.swap !== undefined) containerSwap.push({ labels, value: sample.memory.swap, timestamp: sample.time });
    }
    const labels = { namespace: pod.namespace, pod: pod.name };
    const sample = pod.usage?.sample;
    if (sample?.cpu) podCpu.push({ labels, value: sample.cpu.usageNanos / NANOS, timestamp: sample.time });
    if (sample?.memory) podMemory.push({ labels, value: sample.memory.workingSet, timestamp: sample.time });
    if (sample?.memory?.swap !== undefined) podSwap.push({ labels, value: sample.memory.swap, timestamp: sample.time });
  }
  const time = node.usage?.sample.time;
  text
    .family('container_cpu_usage_seconds_total', 'counter', '[STABLE] Cumulative cpu time consumed by the container in core-seconds', containerCpu)
    .family('container_memory_working_set_bytes', 'gauge', '[STABLE] Current working set of the container in bytes', containerMemory)
    .family('container_start_time_seconds', 'gauge', '[STABLE] Start time of the container since unix epoch in seconds', containerStart)
    .family(
      'container_swap_usage_bytes',
      'gauge',
      '[ALPHA] Current amount of the container swap usage in bytes. Reported only on non-windows systems',
      containerSwap,
    )
    .family(
      'node_cpu_usage_seconds_total',
      'counter',
      '[STABLE] Cumulative cpu time consumed by the node in core-seconds',
      cpu ? [{ value: cpu.usageNanos / NANOS, timestamp: time }] : [],
    )
    .family(
      'node_memory_working_set_bytes',
      'gauge',
      '[STABLE] Current working set of the node in bytes',
      memory ? [{ value: memory.workingSet, timestamp: time }] : [],
    )
    .family(
      'node_swap_usage_bytes',
      'gauge',
      '[ALPHA] Current swap usage of the node in bytes. Reported only on non-windows systems',
      memory?.swap !== undefined ? [{ value: memory.swap, timestamp: time }] : [],
    )
    .family('pod_cpu_usage_seconds_total', 'counter', '[STABLE] Cumulative cpu time consumed by the pod in core-seconds', podCpu)
    .family('pod_memory_working_set_bytes', 'gauge', '[STABLE] Current working set of the pod in bytes', podMemory)
    .family('pod_swap_usage_bytes', 'gauge', '[ALPHA] Current amount of the pod swap usage in bytes. Reported only on non-windows systems', podSwap)
    .family('resource_scrape_error', 'gauge', '[STABLE] 1 if there was an error while getting container metrics, 0 otherwise', [{ value: 0 }]);
  return text.toString();
}

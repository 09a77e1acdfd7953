import { PrometheusText, type Sample } from './prometheus-text';
import type { CgroupUsage, NodeSnapshot } from './stats-provider';

const NANOS = 1e9;

/** One cgroup cAdvisor lists, with the labels the kubelet gives it. */
interface Entry {
  labels: Record<string, string>;
  usage: CgroupUsage;
  startTime?: number;
}

/** cAdvisor's labels, as the kubelet sets them: the container's name, cgroup, image, runtime id, pod. */
function labels(container: string, id: string, image: string, name: string, namespace: string, pod: string): Record<string, string> {
  return { container, id, image, name, namespace, pod };
}

function entries(node: NodeSnapshot): Entry[] {
  const list: Entry[] = [];
  if (node.usage) list.push({ labels: labels('', '/', '', '', '', ''), usage: node.usage, startTime: node.bootTime });
  if (node.podsUsage) list.push({ labels: labels('', node.podsUsage.path, '', '', '', ''), usage: node.podsUsage, startTime: node.bootTime });
  for (const pod of node.pods) {
    if (pod.usage?.path) list.push({ labels: labels('', pod.usage.path, '', '', pod.namespace, pod.name), usage: pod.usage, startTime: pod.startTime });
    // The sandbox is the container cAdvisor calls `POD`.
    const sandbox = pod.sandbox;
    if (sandbox?.usage?.path)
      list.push({
        labels: labels('POD', sandbox.usage.path, sandbox.image, sandbox.id, pod.namespace, pod.name),
        usage: sandbox.usage,
        startTime: pod.startTime,
      });
    for (const c of pod.containers) {
      if (!c.usage?.path) continue;
      list.push({ labels: labels(c.name, c.usage.path, c.image, c.id, pod.namespace, pod.name), usage: c.usage, startTime: c.startTime });
    }
  }
  return list;
}

/**
 * `/metrics/cadvisor`: cAdvisor's container metrics as the kubelet serves them, for the node's root
 * cgroup, the pods' cgroup, each pod, its sandbox (`container="POD"`) and each running container:
 * CPU (total, user, system, CFS throttling), memory (usage, working set, rss, cache, mapped files,
 * swap, failures), the cgroup's limits, start and last-seen times, writable-layer use and the pods'
 * network counters; and the machine's cores and memory.
 */
export function cadvisorMetrics(node: NodeSnapshot): string {
  const list = entries(node);
  const pick = (value: (e: Entry) => number | undefined, extra?: Record<string, string>, stamped = true): Sample[] =>
    list.flatMap((e) => {
      const v = value(e);
      return v === undefined ? [] : [{ labels: extra ? { ...e.labels, ...extra } : e.labels, value: v, timestamp: stamped ? e.usage.sample.time : undefined }];
    });
  const cpu = (e: Entry) => e.usage.sample.cpu;
  const memory = (e: Entry) => e.usage.sample.memory;
  const quota = (e: Entry) => (e.usage.sample.spec.quota !== undefined ? cpu(e) : undefined);
  const fsSamples: Sample[] = [];
  const network: Record<string, Sample[]> = { rxBytes: [], rxErrors: [], txBytes: [], txErrors: [] };
  for (const pod of node.pods) {
    for (const c of pod.containers) {
      if (c.rootfs && c.usage?.path)
        fsSamples.push({
          labels: { ...labels(c.name, c.usage.path, c.image, c.id, pod.namespace, pod.name), device: c.rootfs.fs ? 'rootfs' : '' },
          value: c.rootfs.usedBytes,
          timestamp: c.rootfs.time,
        });
    }
    const sandbox = pod.sandbox;
    if (!pod.network || !sandbox?.usage?.path) continue;
    const base = labels('POD', sandbox.usage.path, sandbox.image, sandbox.id, pod.namespace, pod.name);
    for (const i of pod.network.interfaces) {
      for (const key of ['rxBytes', 'rxErrors', 'txBytes', 'txErrors'] as const) {
        network[key].push({ labels: { ...base, interface: i.name }, value: i[key] ?? 0, timestamp: pod.network.time });
      }
    }
  }
  const text = new PrometheusText()
    .family(
      'container_cpu_cfs_periods_total',
      'counter',
      'Number of elapsed enforcement period intervals.',
      pick((e) => quota(e)?.periods),
    )
    .family(
      'container_cpu_cfs_throttled_periods_total',
      'counter',
      'Number of throttled period intervals.',
      pick((e) => quota(e)?.throttledPeriods),
    )
    .family(
      'container_cpu_cfs_throttled_seconds_total',
      'counter',
      'Total time duration the container has been throttled.',
      pick((e) => (quota(e)?.throttledNanos !== undefined ? (quota(e)?.throttledNanos ?? 0) / NANOS : undefined)),
    )
    .family(
      'container_cpu_system_seconds_total',
      'counter',
      'Cumulative system cpu time consumed in seconds.',
      pick((e) => (cpu(e)?.systemNanos !== undefined ? (cpu(e)?.systemNanos ?? 0) / NANOS : undefined)),
    )
    .family(
      'container_cpu_usage_seconds_total',
      'counter',
      'Cumulative cpu time consumed in seconds.',
      pick((e) => (cpu(e) ? (cpu(e)?.usageNanos ?? 0) / NANOS : undefined), { cpu: 'total' }),
    )
    .family(
      'container_cpu_user_seconds_total',
      'counter',
      'Cumulative user cpu time consumed in seconds.',
      pick((e) => (cpu(e)?.userNanos !== undefined ? (cpu(e)?.userNanos ?? 0) / NANOS : undefined)),
    )
    .family('container_fs_usage_bytes', 'gauge', 'Number of bytes that are consumed by the container on this filesystem.', fsSamples)
    .family(
      'container_last_seen',
      'gauge',
      'Last time a container was seen by the exporter',
      pick((e) => Math.floor(e.usage.sample.time / 1000), undefined, true),
    )
    .family(
      'container_memory_cache',
      'gauge',
      'Number of bytes of page cache memory.',
      pick((e) => memory(e)?.cache),
    )
    .family(
      'container_memory_failcnt',
      'counter',
      'Number of memory usage hits limits',
      pick((e) => memory(e)?.failcnt),
    )
    .family(
      'container_memory_mapped_file',
      'gauge',
      'Size of memory mapped files in bytes.',
      pick((e) => memory(e)?.mappedFile),
    )
    .family(
      'container_memory_max_usage_bytes',
      'gauge',
      'Maximum memory usage recorded in bytes',
      pick((e) => memory(e)?.maxUsage),
    )
    .family(
      'container_memory_rss',
      'gauge',
      'Size of RSS in bytes.',
      pick((e) => memory(e)?.rss),
    )
    .family(
      'container_memory_swap',
      'gauge',
      'Container swap usage in bytes.',
      pick((e) => memory(e)?.swap),
    )
    .family(
      'container_memory_usage_bytes',
      'gauge',
      'Current memory usage in bytes, including all memory regardless of when it was accessed',
      pick((e) => memory(e)?.usage),
    )
    .family(
      'container_memory_working_set_bytes',
      'gauge',
      'Current working set in bytes.',
      pick((e) => memory(e)?.workingSet),
    )
    .family('container_network_receive_bytes_total', 'counter', 'Cumulative count of bytes received', network.rxBytes)
    .family('container_network_receive_errors_total', 'counter', 'Cumulative count of errors encountered while receiving', network.rxErrors)
    .family('container_network_transmit_bytes_total', 'counter', 'Cumulative count of bytes transmitted', network.txBytes)
    .family('container_network_transmit_errors_total', 'counter', 'Cumulative count of errors encountered while transmitting', network.txErrors)
    .family('container_scrape_error', 'gauge', '1 if there was an error while getting container metrics, 0 otherwise', [{ value: 0 }])
    .family(
      'container_spec_cpu_period',
      'gauge',
      'CPU period of the container.',
      pick((e) => e.usage.sample.spec.period, undefined, false),
    )
    .family(
      'container_spec_cpu_quota',
      'gauge',
      'CPU quota of the container.',
      pick((e) => e.usage.sample.spec.quota, undefined, false),
    )
    .family(
      'container_spec_cpu_shares',
      'gauge',
      'CPU share of the container.',
      pick((e) => e.usage.sample.spec.shares, undefined, false),
    )
    .family(
      'container_spec_memory_limit_bytes',
      'gauge',
      'Memory limit for the container.',
      pick((e) => (memory(e) ? (memory(e)?.limit ?? 0) : undefined), undefined, false),
    )
    .family(
      'container_start_time_seconds',
      'gauge',
      'Start time of the container since unix epoch in seconds.',
      pick((e) => (e.startTime ? e.startTime / 1000 : undefined), undefined, false),
    )
    .family('machine_cpu_cores', 'gauge', 'Number of logical CPU cores.', [{ value: node.cores }])
    .family('machine_memory_bytes', 'gauge', 'Amount of memory installed on the machine.', [{ value: node.memoryCapacity }]);
  return text.toString();
}

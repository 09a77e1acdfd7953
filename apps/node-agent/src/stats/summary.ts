import type { CgroupUsage, FsUsage, NodeSnapshot } from './stats-provider';
import type { CPUStats, SummaryContainerStats, FsStats, MemoryStats, NetworkStats, Summary } from './summary-types';

/** Kubernetes' Go default interface, shown inline in NetworkStats. */
const DEFAULT_INTERFACE = 'eth0';

/** A time as metav1.Time writes it: RFC 3339 to the second. */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function cpuStats(usage: CgroupUsage | undefined): CPUStats | undefined {
  const cpu = usage?.sample.cpu;
  if (!usage || !cpu) return undefined;
  const stats: CPUStats = { time: metaTime(usage.sample.time), usageCoreNanoSeconds: Math.round(cpu.usageNanos) };
  if (usage.usageNanoCores !== undefined) stats.usageNanoCores = usage.usageNanoCores;
  return stats;
}

/** Memory as the kubelet reports it; `available` is what is left below the limit (or the node's capacity). */
function memoryStats(usage: CgroupUsage | undefined, capacity?: number): MemoryStats | undefined {
  const memory = usage?.sample.memory;
  if (!usage || !memory) return undefined;
  const limit = memory.limit ?? capacity;
  const stats: MemoryStats = { time: metaTime(usage.sample.time) };
  if (limit !== undefined) stats.availableBytes = Math.max(0, limit - memory.workingSet);
  return {
    ...stats,
    usageBytes: memory.usage,
    workingSetBytes: memory.workingSet,
    rssBytes: memory.rss,
    pageFaults: memory.pageFaults,
    majorPageFaults: memory.majorPageFaults,
  };
}

function fsStats(usage: FsUsage | undefined): FsStats | undefined {
  if (!usage) return undefined;
  const stats: FsStats = { time: metaTime(usage.time) };
  if (usage.fs) {
    stats.availableBytes = usage.fs.availableBytes;
    stats.capacityBytes = usage.fs.capacityBytes;
  }
  stats.usedBytes = usage.usedBytes;
  if (usage.fs) {
    stats.inodesFree = usage.fs.inodesFree;
    stats.inodes = usage.fs.inodes;
  }
  if (usage.inodesUsed !== undefined) stats.inodesUsed = usage.inodesUsed;
  return stats;
}

function networkStats(network: NodeSnapshot['network']): NetworkStats | undefined {
  if (!network) return undefined;
  const primary = network.interfaces.find((i) => i.name === DEFAULT_INTERFACE);
  return { time: metaTime(network.time), ...(primary ?? {}), interfaces: network.interfaces };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The `/stats/summary` document of a snapshot. */
export function summaryOf(node: NodeSnapshot): Summary {
  const systemContainers: SummaryContainerStats[] = [];
  if (node.podsUsage)
    systemContainers.push(
      withoutUndefined({
        name: 'pods',
        startTime: metaTime(node.bootTime),
        cpu: cpuStats(node.podsUsage),
        memory: memoryStats(node.podsUsage, node.memoryCapacity),
      }),
    );
  return {
    node: withoutUndefined({
      nodeName: node.nodeName,
      systemContainers: systemContainers.length > 0 ? systemContainers : undefined,
      startTime: metaTime(node.bootTime),
      cpu: cpuStats(node.usage),
      memory: memoryStats(node.usage, node.memoryCapacity),
      network: networkStats(node.network),
      fs: fsStats(node.fs),
      runtime: node.imageFs ? { imageFs: fsStats(node.imageFs), containerFs: fsStats(node.imageFs) } : undefined,
      rlimit: { time: metaTime(node.rlimit.time), maxpid: node.rlimit.maxpid, curproc: node.rlimit.curproc },
    }),
    pods: node.pods.map((pod) =>
      withoutUndefined({
        podRef: { name: pod.name, namespace: pod.namespace, uid: pod.uid },
        startTime: metaTime(pod.startTime),
        containers: pod.containers.map((c) =>
          withoutUndefined({
            name: c.name,
            startTime: metaTime(c.startTime),
            cpu: cpuStats(c.usage),
            memory: memoryStats(c.usage),
            rootfs: fsStats(c.rootfs),
            logs: fsStats(c.logs),
          }),
        ),
        cpu: cpuStats(pod.usage),
        memory: memoryStats(pod.usage),
        network: networkStats(pod.network),
        volume: pod.volumes && pod.volumes.length > 0 ? pod.volumes : undefined,
        'ephemeral-storage': fsStats(pod.ephemeral),
        // Processes are in the containers' cgroups, below the pod's.
        process_stats: { process_count: pod.containers.reduce((n, c) => n + (c.usage?.sample.pids?.length ?? 0), 0) },
      }),
    ),
  };
}

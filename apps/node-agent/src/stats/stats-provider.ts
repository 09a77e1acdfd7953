import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '@svc/api';
import type { ContainerStats as CriContainerStats, CriClient, PodSandbox, RuntimeContainer } from '@svc/cri';
import { podCgroupParent, qosCgroup } from '../containers/container-resources';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID, podLogDirectoryName } from '../containers/runtime-labels';
import { memInfo, processCount } from '../node/host-facts';
import type { CgroupReader, CgroupSample } from './cgroup-reader';
import { CpuRate } from './cpu-rate';
import { diskUsage, filesystemInfo, type FilesystemInfo } from './disk-usage';
import { networkInterfaces } from './net-dev';
import type { InterfaceStats, VolumeStats } from './summary-types';
import type { VolumeStatsCache } from './volume-stats-cache';

/** A cgroup's reading and the CPU rate at it. */
export interface CgroupUsage {
  /** The cgroup's path below each hierarchy's root (cAdvisor's `id` label). */
  path: string;
  sample: CgroupSample;
  usageNanoCores?: number;
}

export interface FsUsage {
  time: number;
  usedBytes: number;
  inodesUsed?: number;
  fs?: FilesystemInfo;
}

export interface ContainerSnapshot {
  name: string;
  id: string;
  image: string;
  /** When the runtime made the container (ms), as the kubelet's stats give its start. */
  startTime: number;
  usage?: CgroupUsage;
  rootfs?: FsUsage;
  logs?: FsUsage;
}

export interface PodSnapshot {
  name: string;
  namespace: string;
  uid: string;
  startTime: number;
  usage?: CgroupUsage;
  /** The sandbox's (pause) cgroup, which cAdvisor lists as the container `POD`. */
  sandbox?: { id: string; image: string; usage?: CgroupUsage };
  containers: ContainerSnapshot[];
  network?: { time: number; interfaces: InterfaceStats[] };
  volumes?: VolumeStats[];
  ephemeral?: FsUsage;
}

export interface NodeSnapshot {
  nodeName: string;
  time: number;
  bootTime: number;
  cores: number;
  memoryCapacity: number;
  usage?: CgroupUsage;
  /** The cgroup all pods sit below (the kubelet's system container `pods`). */
  podsUsage?: CgroupUsage;
  network?: { time: number; interfaces: InterfaceStats[] };
  fs?: FsUsage;
  imageFs?: FsUsage;
  rlimit: { time: number; maxpid: number; curproc: number };
  pods: PodSnapshot[];
}

export interface StatsProviderOptions {
  nodeName: string;
  rootDir: string;
  podLogRoot: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
}

/** What the provider reads of the agent: the pods it runs and its runtime. */
export interface StatsSource {
  pods(): Pod[];
  cri: CriClient;
}

async function bootTime(): Promise<number> {
  const text = await readFile('/proc/stat', 'utf8').catch(() => '');
  const seconds = Number(/^btime (\d+)$/m.exec(text)?.[1] ?? 0);
  return seconds * 1000;
}

function fsUsage(time: number, used: { bytes: number; inodes: number } | undefined, fs: FilesystemInfo | undefined): FsUsage | undefined {
  return used ? { time, usedBytes: used.bytes, inodesUsed: used.inodes, fs } : undefined;
}

/**
 * Reads what the node's stats report, at once: the node's, each running pod's and container's CPU
 * and memory from their cgroups (cAdvisor's way; the runtime's own stats only where the cgroup
 * cannot be read), the pods' network from their network namespace, the writable layers and the
 * image filesystem from the runtime, logs and volumes from disk.
 *
 * Why the cgroups rather than CRI's ListContainerStats: the pod's and the node's own cgroups, which
 * `/metrics/resource` reports, are not in CRI (containerd 1.6 has no ListPodSandboxStats); containerd
 * 1.6 leaves usageNanoCores at 0; and the throttling and memory details of `/metrics/cadvisor` are
 * only in the cgroup files, which containerd itself reads for its answer.
 */
export class StatsProvider {
  private readonly rates = new CpuRate();

  constructor(
    private readonly source: StatsSource,
    private readonly cgroups: CgroupReader,
    private readonly volumes: VolumeStatsCache,
    private readonly options: StatsProviderOptions,
  ) {}

  private async usage(path: string, live: Set<string>): Promise<CgroupUsage | undefined> {
    const sample = await this.cgroups.read(path);
    if (!sample) return undefined;
    live.add(path);
    const usageNanoCores = sample.cpu ? this.rates.observe(path, sample.cpu.usageNanos, sample.time) : undefined;
    return { path, sample, usageNanoCores };
  }

  /** Everything at once; `cpuAndMemoryOnly` skips the filesystems, network and volumes (`only_cpu_and_memory`). */
  async snapshot(cpuAndMemoryOnly = false): Promise<NodeSnapshot> {
    const { cri } = this.source;
    const pods = this.source.pods();
    this.volumes.track(pods);
    const [sandboxes, containers, criStats] = await Promise.all([
      cri.listPodSandbox(),
      cri.listContainers(),
      cpuAndMemoryOnly ? Promise.resolve([] as CriContainerStats[]) : cri.listContainerStats().catch(() => [] as CriContainerStats[]),
    ]);
    const statsById = new Map(criStats.map((s) => [s.attributes?.id ?? '', s]));
    const live = new Set<string>();
    const now = Date.now();
    const node: NodeSnapshot = {
      nodeName: this.options.nodeName,
      time: now,
      bootTime: await bootTime(),
      cores: (await readFile('/proc/cpuinfo', 'utf8').catch(() => '')).split('\n').filter((l) => l.startsWith('processor')).length,
      memoryCapacity: memInfo().total,
      usage: await this.usage('/', live),
      podsUsage: this.options.cgroupsPerQOS ? await this.usage(qosCgroup(this.options.cgroupRoot, 'Guaranteed'), live) : undefined,
      rlimit: { time: now, ...(({ running, max }) => ({ curproc: running, maxpid: max }))(processCount()) },
      pods: [],
    };
    for (const pod of pods) {
      const snapshot = await this.podSnapshot(pod, sandboxes, containers, statsById, live, cpuAndMemoryOnly);
      if (snapshot) node.pods.push(snapshot);
    }
    if (!cpuAndMemoryOnly) {
      const interfaces = await networkInterfaces('self');
      if (interfaces) node.network = { time: Date.now(), interfaces };
      const rootFs = await filesystemInfo(this.options.rootDir);
      if (rootFs) node.fs = { time: Date.now(), usedBytes: rootFs.usedBytes, inodesUsed: rootFs.inodesUsed, fs: rootFs };
      node.imageFs = await this.imageFs();
    }
    this.rates.forget(live);
    return node;
  }

  private async imageFs(): Promise<FsUsage | undefined> {
    const usage = (await this.source.cri.imageFsInfo().catch(() => []))[0];
    if (!usage) return undefined;
    const fs = usage.fsId?.mountpoint ? await filesystemInfo(usage.fsId.mountpoint) : undefined;
    return { time: Date.now(), usedBytes: usage.usedBytes?.value ?? 0, inodesUsed: usage.inodesUsed?.value, fs };
  }

  private async podSnapshot(
    pod: Pod,
    sandboxes: PodSandbox[],
    containers: RuntimeContainer[],
    statsById: Map<string, CriContainerStats>,
    live: Set<string>,
    cpuAndMemoryOnly: boolean,
  ): Promise<PodSnapshot | undefined> {
    const meta = pod.metadata ?? {};
    const uid = meta.uid ?? '';
    const sandbox = sandboxes.filter((s) => s.labels?.[LABEL_POD_UID] === uid && s.state === 'SANDBOX_READY').sort((a, b) => b.createdAt - a.createdAt)[0];
    // As the kubelet: a pod without a running sandbox has no stats.
    if (!sandbox) return undefined;
    const parent = podCgroupParent(pod, this.options.cgroupRoot, this.options.cgroupsPerQOS);
    const snapshot: PodSnapshot = {
      name: meta.name ?? '',
      namespace: meta.namespace ?? 'default',
      uid,
      startTime: Math.floor(sandbox.createdAt / 1e6),
      usage: parent ? await this.usage(parent, live) : undefined,
      containers: [],
    };
    const sandboxUsage = parent ? await this.usage(`${parent}/${sandbox.id}`, live) : undefined;
    snapshot.sandbox = { id: sandbox.id, image: '', usage: sandboxUsage };
    const running = containers.filter((c) => c.podSandboxId === sandbox.id && c.state === 'CONTAINER_RUNNING');
    for (const container of running) {
      const name = container.labels?.[LABEL_CONTAINER_NAME] ?? container.metadata?.name ?? '';
      const cri = statsById.get(container.id);
      const entry: ContainerSnapshot = {
        name,
        id: container.id,
        image: container.image?.image ?? '',
        startTime: Math.floor(container.createdAt / 1e6),
        usage: parent ? await this.usage(`${parent}/${container.id}`, live) : undefined,
      };
      entry.usage ??= this.fromRuntime(container.id, cri);
      if (!cpuAndMemoryOnly) {
        const layer = cri?.writableLayer;
        if (layer) {
          const fs = layer.fsId?.mountpoint ? await filesystemInfo(layer.fsId.mountpoint) : undefined;
          entry.rootfs = { time: Date.now(), usedBytes: layer.usedBytes?.value ?? 0, inodesUsed: layer.inodesUsed?.value ?? 0, fs };
        }
        const logDir = join(this.options.podLogRoot, podLogDirectoryName({ namespace: snapshot.namespace, name: snapshot.name, uid }), name);
        entry.logs = fsUsage(Date.now(), await diskUsage(logDir, 10_000), await filesystemInfo(this.options.podLogRoot));
      }
      snapshot.containers.push(entry);
    }
    if (!cpuAndMemoryOnly) {
      const pid = sandboxUsage?.sample.pids?.[0];
      const interfaces = pid !== undefined ? await networkInterfaces(pid) : undefined;
      if (interfaces) snapshot.network = { time: Date.now(), interfaces };
      const measured = this.volumes.get(uid);
      if (measured) snapshot.volumes = measured.volumes;
      snapshot.ephemeral = await this.ephemeral(snapshot, measured?.ephemeral ?? new Set());
    }
    return snapshot;
  }

  /** A pod's CPU and memory as the runtime counts them, for a container whose cgroup cannot be read here. */
  private fromRuntime(id: string, stats: CriContainerStats | undefined): CgroupUsage | undefined {
    if (!stats?.cpu && !stats?.memory) return undefined;
    const time = Math.floor((stats.cpu?.timestamp ?? stats.memory?.timestamp ?? Date.now() * 1e6) / 1e6);
    const sample: CgroupSample = { time, spec: {} };
    if (stats.cpu?.usageCoreNanoSeconds) sample.cpu = { usageNanos: stats.cpu.usageCoreNanoSeconds.value };
    if (stats.memory?.workingSetBytes) {
      const usage = stats.memory.usageBytes?.value ?? stats.memory.workingSetBytes.value;
      sample.memory = {
        usage,
        workingSet: stats.memory.workingSetBytes.value,
        rss: stats.memory.rssBytes?.value ?? 0,
        cache: 0,
        mappedFile: 0,
        pageFaults: 0,
        majorPageFaults: 0,
      };
    }
    const key = `runtime:${id}`;
    return { path: '', sample, usageNanoCores: sample.cpu ? this.rates.observe(key, sample.cpu.usageNanos, time) : undefined };
  }

  /** The kubelet's ephemeral storage of a pod: its containers' writable layers and logs, and its local volumes. */
  private async ephemeral(pod: PodSnapshot, ephemeralVolumes: ReadonlySet<string>): Promise<FsUsage> {
    let used = 0;
    let inodes = 0;
    for (const container of pod.containers) {
      used += (container.rootfs?.usedBytes ?? 0) + (container.logs?.usedBytes ?? 0);
      inodes += (container.rootfs?.inodesUsed ?? 0) + (container.logs?.inodesUsed ?? 0);
    }
    for (const volume of pod.volumes ?? []) {
      if (!ephemeralVolumes.has(volume.name)) continue;
      used += volume.usedBytes ?? 0;
      inodes += volume.inodesUsed ?? 0;
    }
    return { time: Date.now(), usedBytes: used, inodesUsed: inodes, fs: await filesystemInfo(this.options.rootDir) };
  }
}

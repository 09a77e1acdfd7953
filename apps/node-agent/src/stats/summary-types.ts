/**
 * The kubelet's `/stats/summary` document (k8s.io/kubelet's stats/v1alpha1 as of Kubernetes 1.32):
 * field names and nesting as clients such as metrics-server's older scrapers and monitoring agents
 * read them. Times are RFC 3339 strings; counters and sizes are whole numbers.
 */
export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

export interface CPUStats {
  time: string;
  usageNanoCores?: number;
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface SwapStats {
  time: string;
  swapAvailableBytes?: number;
  swapUsageBytes?: number;
}

export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface InterfaceStats {
  name: string;
  rxBytes?: number;
  rxErrors?: number;
  txBytes?: number;
  txErrors?: number;
}

/** The default interface's counters inline, and every interface's in `interfaces`. */
export interface NetworkStats extends Partial<InterfaceStats> {
  time: string;
  interfaces?: InterfaceStats[];
}

export interface SummaryContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
  swap?: SwapStats;
}

export interface VolumeStats extends FsStats {
  name: string;
  pvcRef?: { name: string; namespace: string };
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: SummaryContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  volume?: VolumeStats[];
  'ephemeral-storage'?: FsStats;
  process_stats?: { process_count?: number };
  swap?: SwapStats;
}

export interface NodeStats {
  nodeName: string;
  systemContainers?: SummaryContainerStats[];
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  fs?: FsStats;
  runtime?: { imageFs?: FsStats; containerFs?: FsStats };
  rlimit?: { time: string; maxpid?: number; curproc?: number };
  swap?: SwapStats;
}

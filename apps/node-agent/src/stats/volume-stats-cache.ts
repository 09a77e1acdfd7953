import type { Pod } from '@svc/api';
import type { StatsVolume } from '../volumes/volume-manager';
import { diskUsage, filesystemInfo } from './disk-usage';
import type { VolumeStats } from './summary-types';

/** The volumes of a pod whose use is measured. */
export type StatsVolumesOf = (pod: Pod) => StatsVolume[];

interface PodEntry {
  timer?: NodeJS.Timeout;
  running: boolean;
  volumes?: VolumeStats[];
  /** Which of them count in the pod's ephemeral storage. */
  ephemeral: ReadonlySet<string>;
}

/**
 * Each pod's volume use, measured in the background as the kubelet's fsResourceAnalyzer does: once
 * when the pod is first seen, then every `periodMs` (`volumeStatsAggPeriod`, jittered so pods do not
 * walk their volumes at once); a summary reads the last figures. A pod no longer running stops its
 * measurement. Walking a volume reads its whole tree, so it is never done in a request.
 */
export class VolumeStatsCache {
  private readonly pods = new Map<string, PodEntry>();
  private stopped = false;

  constructor(
    private readonly volumesOf: StatsVolumesOf,
    private readonly periodMs: number,
  ) {}

  /** Starts measuring pods not yet measured and forgets those gone. */
  track(pods: readonly Pod[]): void {
    if (this.stopped || this.periodMs <= 0) return;
    const live = new Set<string>();
    for (const pod of pods) {
      const uid = pod.metadata?.uid ?? '';
      if (uid === '') continue;
      live.add(uid);
      if (!this.pods.has(uid)) {
        const entry: PodEntry = { running: false, ephemeral: new Set() };
        this.pods.set(uid, entry);
        void this.measure(uid, pod, entry);
      }
    }
    for (const [uid, entry] of this.pods) {
      if (live.has(uid)) continue;
      clearTimeout(entry.timer);
      this.pods.delete(uid);
    }
  }

  /** The last figures of a pod's volumes (undefined before the first measurement ends), and which are ephemeral. */
  get(uid: string): { volumes: VolumeStats[]; ephemeral: ReadonlySet<string> } | undefined {
    const entry = this.pods.get(uid);
    return entry?.volumes ? { volumes: entry.volumes, ephemeral: entry.ephemeral } : undefined;
  }

  stop(): void {
    this.stopped = true;
    for (const entry of this.pods.values()) clearTimeout(entry.timer);
    this.pods.clear();
  }

  private async measure(uid: string, pod: Pod, entry: PodEntry): Promise<void> {
    if (entry.running) return;
    entry.running = true;
    try {
      const targets = this.volumesOf(pod);
      const volumes: VolumeStats[] = [];
      for (const target of targets) {
        const stats = await volumeStats(target);
        if (stats) volumes.push(stats);
      }
      entry.volumes = volumes;
      entry.ephemeral = new Set(targets.filter((t) => t.ephemeral).map((t) => t.name));
    } finally {
      entry.running = false;
    }
    if (this.stopped || this.pods.get(uid) !== entry) return;
    const jitter = 1 + Math.random() * 0.1;
    entry.timer = setTimeout(() => void this.measure(uid, pod, entry), this.periodMs * jitter);
    entry.timer.unref();
  }
}

/**
 * One volume's use: bytes and inodes of its tree (as `du` counts them) and its filesystem's size and
 * free space; undefined when its directory is not there (not set up yet).
 */
export async function volumeStats(target: StatsVolume): Promise<VolumeStats | undefined> {
  const [usage, fs] = await Promise.all([diskUsage(target.path), filesystemInfo(target.path)]);
  if (!usage || !fs) return undefined;
  const stats: VolumeStats = {
    time: new Date().toISOString(),
    availableBytes: fs.availableBytes,
    capacityBytes: fs.capacityBytes,
    usedBytes: usage.bytes,
    inodesFree: fs.inodesFree,
    inodes: fs.inodes,
    inodesUsed: usage.inodes,
    name: target.name,
  };
  if (target.pvcRef) stats.pvcRef = target.pvcRef;
  return stats;
}

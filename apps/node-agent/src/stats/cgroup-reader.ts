import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where each hierarchy the stats read is mounted: cgroup v1 controllers by name, and the v2 tree. */
export interface CgroupMounts {
  /** v1 mount points by controller (`cpu`, `cpuacct`, `memory`); a co-mounted `cpu,cpuacct` is under both names. */
  v1: ReadonlyMap<string, string>;
  /** The cgroup v2 (unified) mount point, when there is one. */
  unified?: string;
}

/** Undoes mountinfo's octal escapes (`\040` for a space). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * The hierarchies of `/proc/self/mountinfo`'s text whose root is the hierarchy's root: a hybrid
 * machine has the v1 controllers and an (often empty) unified tree at once.
 */
export function cgroupMounts(mountinfo: string): CgroupMounts {
  const v1 = new Map<string, string>();
  let unified: string | undefined;
  for (const line of mountinfo.split('\n')) {
    const separator = line.indexOf(' - ');
    if (separator < 0) continue;
    const [fsType, , superOptions = ''] = line.slice(separator + 3).split(' ');
    const fields = line.slice(0, separator).split(' ');
    if (fields[3] !== '/') continue;
    const point = unescapeMountPath(fields[4]);
    if (fsType === 'cgroup2') unified ??= point;
    if (fsType !== 'cgroup') continue;
    for (const option of superOptions.split(',')) if (!v1.has(option)) v1.set(option, point);
  }
  return { v1, unified };
}

/** What the kernel counts of a cgroup's CPU: nanoseconds, and CFS throttling. */
export interface CgroupCpu {
  usageNanos: number;
  userNanos?: number;
  systemNanos?: number;
  periods?: number;
  throttledPeriods?: number;
  throttledNanos?: number;
}

/** A cgroup's memory, in bytes; `limit` undefined when unlimited. */
export interface CgroupMemory {
  usage: number;
  /** usage less inactive file pages (what the kernel cannot simply drop), as the kubelet reports it. */
  workingSet: number;
  rss: number;
  cache: number;
  mappedFile: number;
  swap?: number;
  pageFaults: number;
  majorPageFaults: number;
  limit?: number;
  maxUsage?: number;
  failcnt?: number;
}

/** A cgroup's CPU settings, as cAdvisor reports them (`container_spec_*`). */
export interface CgroupCpuSpec {
  shares?: number;
  quota?: number;
  period?: number;
}

export interface CgroupSample {
  /** When the files were read (ms since the epoch). */
  time: number;
  cpu?: CgroupCpu;
  memory?: CgroupMemory;
  spec: CgroupCpuSpec;
  /** Processes in the cgroup (the first one's network namespace is the pod's). */
  pids?: number[];
}

/** Limits larger than this mean "none" (v1 writes the page-rounded maximum of an int64). */
const UNLIMITED = 2 ** 62;
/** USER_HZ, in which v1's cpuacct.stat counts. */
const USER_HZ = 100;

function keyedNumbers(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value !== undefined && /^\d+$/.test(value)) values.set(key, Number(value));
  }
  return values;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function readNumber(path: string): Promise<number | undefined> {
  const text = (await readText(path))?.trim();
  if (text === undefined || text === '' || text === 'max') return undefined;
  const value = Number(text.split(/\s+/)[0]);
  return Number.isFinite(value) ? value : undefined;
}

function limitOf(value: number | undefined): number | undefined {
  return value === undefined || value >= UNLIMITED ? undefined : value;
}

/**
 * Reads cgroups as cAdvisor does for the kubelet: cgroup v1's cpu, cpuacct and memory controllers
 * when they are mounted (a hybrid machine keeps them there), the unified v2 tree otherwise. A path
 * is relative to each hierarchy's root (`/kubepods/burstable/pod<uid>/<container id>`); a cgroup
 * that does not exist reads as undefined.
 */
export class CgroupReader {
  constructor(private readonly mounts: CgroupMounts) {}

  /** The hierarchies this process sees (read once: they do not move while the agent runs). */
  static forThisMachine(mountinfoPath = '/proc/self/mountinfo'): CgroupReader {
    let text = '';
    try {
      text = readFileSync(mountinfoPath, 'utf8');
    } catch {
      // No /proc: nothing is read, every cgroup reads as absent.
    }
    return new CgroupReader(cgroupMounts(text));
  }

  /** Whether v1 controllers hold CPU and memory (else the unified tree does). */
  get version(): 1 | 2 {
    return this.mounts.v1.has('cpuacct') || this.mounts.v1.has('memory') ? 1 : 2;
  }

  async read(path: string): Promise<CgroupSample | undefined> {
    const time = Date.now();
    const sample = this.version === 1 ? await this.readV1(path, time) : await this.readV2(path, time);
    return sample.cpu || sample.memory ? sample : undefined;
  }

  private async readV1(path: string, time: number): Promise<CgroupSample> {
    const cpuacct = this.mounts.v1.get('cpuacct');
    const cpu = this.mounts.v1.get('cpu');
    const memory = this.mounts.v1.get('memory');
    const sample: CgroupSample = { time, spec: {} };
    if (cpuacct) {
      const dir = join(cpuacct, path);
      const usage = await readNumber(join(dir, 'cpuacct.usage'));
      if (usage !== undefined) {
        const stat = keyedNumbers((await readText(join(dir, 'cpuacct.stat'))) ?? '');
        sample.cpu = { usageNanos: usage };
        if (stat.has('user')) sample.cpu.userNanos = ((stat.get('user') ?? 0) * 1e9) / USER_HZ;
        if (stat.has('system')) sample.cpu.systemNanos = ((stat.get('system') ?? 0) * 1e9) / USER_HZ;
        sample.pids = await this.pids(dir);
      }
    }
    if (cpu) {
      const dir = join(cpu, path);
      const stat = keyedNumbers((await readText(join(dir, 'cpu.stat'))) ?? '');
      if (sample.cpu && stat.has('nr_periods')) {
        sample.cpu.periods = stat.get('nr_periods');
        sample.cpu.throttledPeriods = stat.get('nr_throttled');
        sample.cpu.throttledNanos = stat.get('throttled_time');
      }
      sample.spec.shares = await readNumber(join(dir, 'cpu.shares'));
      const quota = await readNumber(join(dir, 'cpu.cfs_quota_us'));
      if (quota !== undefined && quota > 0) sample.spec.quota = quota;
      sample.spec.period = await readNumber(join(dir, 'cpu.cfs_period_us'));
    }
    if (memory) {
      const dir = join(memory, path);
      const usage = await readNumber(join(dir, 'memory.usage_in_bytes'));
      if (usage !== undefined) {
        const stat = keyedNumbers((await readText(join(dir, 'memory.stat'))) ?? '');
        // The hierarchical totals count the cgroups below too (a pod's containers).
        const total = (key: string) => stat.get(`total_${key}`) ?? stat.get(key) ?? 0;
        const memsw = await readNumber(join(dir, 'memory.memsw.usage_in_bytes'));
        sample.memory = {
          usage,
          workingSet: Math.max(0, usage - total('inactive_file')),
          rss: total('rss'),
          cache: total('cache'),
          mappedFile: total('mapped_file'),
          swap: memsw !== undefined ? Math.max(0, memsw - usage) : undefined,
          pageFaults: total('pgfault'),
          majorPageFaults: total('pgmajfault'),
          limit: limitOf(await readNumber(join(dir, 'memory.limit_in_bytes'))),
          maxUsage: await readNumber(join(dir, 'memory.max_usage_in_bytes')),
          failcnt: await readNumber(join(dir, 'memory.failcnt')),
        };
        sample.pids ??= await this.pids(dir);
      }
    }
    return sample;
  }

  private async readV2(path: string, time: number): Promise<CgroupSample> {
    const sample: CgroupSample = { time, spec: {} };
    if (!this.mounts.unified) return sample;
    const dir = join(this.mounts.unified, path);
    const cpuStat = await readText(join(dir, 'cpu.stat'));
    if (cpuStat !== undefined) {
      const stat = keyedNumbers(cpuStat);
      if (stat.has('usage_usec')) {
        sample.cpu = {
          usageNanos: (stat.get('usage_usec') ?? 0) * 1000,
          userNanos: (stat.get('user_usec') ?? 0) * 1000,
          systemNanos: (stat.get('system_usec') ?? 0) * 1000,
        };
        if (stat.has('nr_periods')) {
          sample.cpu.periods = stat.get('nr_periods');
          sample.cpu.throttledPeriods = stat.get('nr_throttled');
          sample.cpu.throttledNanos = (stat.get('throttled_usec') ?? 0) * 1000;
        }
      }
      const weight = await readNumber(join(dir, 'cpu.weight'));
      // cgroup v2's weight back to v1's shares, as runc converts them the other way.
      if (weight !== undefined) sample.spec.shares = Math.round(2 + ((weight - 1) * 262142) / 9999);
      const max = ((await readText(join(dir, 'cpu.max'))) ?? '').trim().split(/\s+/);
      if (max[0] && max[0] !== 'max') sample.spec.quota = Number(max[0]);
      if (max[1]) sample.spec.period = Number(max[1]);
    }
    const usage = await readNumber(join(dir, 'memory.current'));
    if (usage !== undefined) {
      const stat = keyedNumbers((await readText(join(dir, 'memory.stat'))) ?? '');
      sample.memory = {
        usage,
        workingSet: Math.max(0, usage - (stat.get('inactive_file') ?? 0)),
        rss: stat.get('anon') ?? 0,
        cache: stat.get('file') ?? 0,
        mappedFile: stat.get('file_mapped') ?? 0,
        swap: await readNumber(join(dir, 'memory.swap.current')),
        pageFaults: stat.get('pgfault') ?? 0,
        majorPageFaults: stat.get('pgmajfault') ?? 0,
        limit: limitOf(await readNumber(join(dir, 'memory.max'))),
        maxUsage: await readNumber(join(dir, 'memory.peak')),
      };
    }
    if (sample.cpu || sample.memory) sample.pids = await this.pids(dir);
    return sample;
  }

  private async pids(dir: string): Promise<number[]> {
    const text = await readText(join(dir, 'cgroup.procs'));
    return (text ?? '')
      .split('\n')
      .filter((line) => /^\d+$/.test(line))
      .map(Number);
  }
}

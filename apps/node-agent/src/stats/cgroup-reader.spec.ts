import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CgroupReader, cgroupMounts } from './cgroup-reader';

const HYBRID = [
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  '50 31 0:39 /nested /elsewhere rw - cgroup cgroup rw,pids',
].join('\n');

describe('cgroupMounts', () => {
  it('finds each v1 controller and the unified tree of a hybrid machine, only where mounted at their root', () => {
    const mounts = cgroupMounts(HYBRID);
    expect(mounts.v1.get('cpu')).toBe('/sys/fs/cgroup/cpu');
    expect(mounts.v1.get('cpuacct')).toBe('/sys/fs/cgroup/cpuacct');
    expect(mounts.v1.get('memory')).toBe('/sys/fs/cgroup/memory');
    expect(mounts.v1.has('pids')).toBe(false);
    expect(mounts.unified).toBe('/sys/fs/cgroup/unified');
  });

  it('puts co-mounted controllers under each name', () => {
    const mounts = cgroupMounts('30 20 0:26 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct');
    expect(mounts.v1.get('cpu')).toBe('/sys/fs/cgroup/cpu,cpuacct');
    expect(mounts.v1.get('cpuacct')).toBe('/sys/fs/cgroup/cpu,cpuacct');
  });
});

describe('CgroupReader', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-node-stats-cgroups-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function files(base: string, entries: Record<string, string>): Promise<void> {
    await mkdir(base, { recursive: true });
    for (const [name, text] of Object.entries(entries)) await writeFile(join(base, name), text);
  }

  it('reads cgroup v1: cpuacct usage and split, CFS throttling, and a working set of usage less inactive files', async () => {
    const pod = '/kubepods/burstable/pod1/c1';
    await files(join(dir, 'cpuacct', pod), { 'cpuacct.usage': '2500000000\n', 'cpuacct.stat': 'user 150\nsystem 50\n', 'cgroup.procs': '42\n43\n' });
    await files(join(dir, 'cpu', pod), {
      'cpu.stat': 'nr_periods 10\nnr_throttled 4\nthrottled_time 900\n',
      'cpu.shares': '307\n',
      'cpu.cfs_quota_us': '30000\n',
      'cpu.cfs_period_us': '100000\n',
    });
    await files(join(dir, 'memory', pod), {
      'memory.usage_in_bytes': '10000000\n',
      'memory.stat':
        'inactive_file 5\ntotal_inactive_file 2000000\ntotal_rss 6000000\ntotal_cache 3000000\ntotal_mapped_file 100\ntotal_pgfault 7\ntotal_pgmajfault 1\n',
      'memory.limit_in_bytes': '67108864\n',
      'memory.max_usage_in_bytes': '12000000\n',
      'memory.failcnt': '0\n',
    });
    const reader = new CgroupReader({
      v1: new Map([
        ['cpu', join(dir, 'cpu')],
        ['cpuacct', join(dir, 'cpuacct')],
        ['memory', join(dir, 'memory')],
      ]),
    });
    expect(reader.version).toBe(1);
    const sample = await reader.read(pod);
    expect(sample?.cpu).toEqual({
      usageNanos: 2_500_000_000,
      userNanos: 1_500_000_000,
      systemNanos: 500_000_000,
      periods: 10,
      throttledPeriods: 4,
      throttledNanos: 900,
    });
    expect(sample?.spec).toEqual({ shares: 307, quota: 30000, period: 100000 });
    expect(sample?.memory).toMatchObject({ usage: 10_000_000, workingSet: 8_000_000, rss: 6_000_000, cache: 3_000_000, limit: 67108864, pageFaults: 7 });
    expect(sample?.pids).toEqual([42, 43]);
    expect(await reader.read('/kubepods/burstable/pod1/gone')).toBeUndefined();
  });

  it('reads v1 limits near the int64 maximum as none', async () => {
    await files(join(dir, 'memory', 'x'), {
      'memory.usage_in_bytes': '100',
      'memory.stat': 'total_inactive_file 200',
      'memory.limit_in_bytes': '9223372036854771712',
    });
    const sample = await new CgroupReader({ v1: new Map([['memory', join(dir, 'memory')]]) }).read('/x');
    expect(sample?.memory?.limit).toBeUndefined();
    // More inactive file pages than usage never makes a negative working set.
    expect(sample?.memory?.workingSet).toBe(0);
  });

  it('reads cgroup v2: cpu.stat in microseconds, memory.current less inactive_file, cpu.max and the weight as shares', async () => {
    await files(join(dir, 'unified', 'kubepods', 'pod2'), {
      'cpu.stat': 'usage_usec 3000\nuser_usec 2000\nsystem_usec 1000\nnr_periods 5\nnr_throttled 1\nthrottled_usec 20\n',
      'cpu.weight': '100\n',
      'cpu.max': '50000 100000\n',
      'memory.current': '4096\n',
      'memory.stat': 'anon 1024\nfile 2048\ninactive_file 1000\nfile_mapped 10\npgfault 3\npgmajfault 0\n',
      'memory.max': 'max\n',
    });
    const reader = new CgroupReader({ v1: new Map(), unified: join(dir, 'unified') });
    expect(reader.version).toBe(2);
    const sample = await reader.read('/kubepods/pod2');
    expect(sample?.cpu).toMatchObject({ usageNanos: 3_000_000, userNanos: 2_000_000, systemNanos: 1_000_000, throttledNanos: 20_000 });
    expect(sample?.spec).toEqual({ shares: 2597, quota: 50000, period: 100000 });
    expect(sample?.memory).toMatchObject({ usage: 4096, workingSet: 3096, rss: 1024, cache: 2048 });
    expect(sample?.memory?.limit).toBeUndefined();
  });
});

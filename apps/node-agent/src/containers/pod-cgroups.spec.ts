import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cgroupMountPoints, removeOrphanedPodCgroups, removePodCgroups } from './pod-cgroups';

describe('pod cgroups', () => {
  it('finds every cgroup hierarchy mounted at its root in mountinfo', () => {
    const mountinfo = [
      '24 30 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw',
      '27 24 0:25 / /sys/fs/cgroup/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw',
      '28 24 0:26 / /sys/fs/cgroup/systemd rw,nosuid shared:10 - cgroup cgroup rw,xattr,name=systemd',
      '31 24 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:13 - cgroup cgroup rw,cpu,cpuacct',
      '32 24 0:30 / /sys/fs/cgroup/memory rw,nosuid shared:14 - cgroup cgroup rw,memory',
      '40 24 0:30 /nested /sys/fs/cgroup/elsewhere rw - cgroup cgroup rw,memory',
      '41 24 0:31 / /mnt/with\\040space rw - cgroup2 cgroup2 rw',
      '',
    ].join('\n');
    expect(cgroupMountPoints(mountinfo)).toEqual([
      '/sys/fs/cgroup/unified',
      '/sys/fs/cgroup/systemd',
      '/sys/fs/cgroup/cpu,cpuacct',
      '/sys/fs/cgroup/memory',
      '/mnt/with space',
    ]);
  });

  it("removes the pod's cgroup in each hierarchy and tier below the cgroup root, leaving other pods and busy ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pod-cgroups-'));
    try {
      const memory = join(dir, 'memory');
      const cpu = join(dir, 'cpu');
      const mountinfo = join(dir, 'mountinfo');
      writeFileSync(mountinfo, `1 0 0:1 / ${memory} rw - cgroup cgroup rw,memory\n2 0 0:2 / ${cpu} rw - cgroup cgroup rw,cpu\n`);
      const own = [join(memory, 'agent/kubepods/besteffort/podA/leftover'), join(cpu, 'agent/kubepods/besteffort/podA'), join(memory, 'agent/kubepods/podA')];
      const other = join(memory, 'agent/kubepods/besteffort/podB');
      // A directory with a file in it stands for a cgroup that still holds a process: rmdir refuses it.
      const busy = join(cpu, 'agent/kubepods/burstable/podA/busy');
      for (const path of [...own, other, busy]) mkdirSync(path, { recursive: true });
      writeFileSync(join(busy, 'cgroup.procs'), '42\n');
      expect(await removePodCgroups('A', '/agent/', true, { mountinfoPath: mountinfo, retryDelaysMs: [1] })).toBe(false);
      expect(own.map((path) => existsSync(path))).toEqual([false, false, false]);
      expect(existsSync(join(memory, 'agent/kubepods/besteffort/podA'))).toBe(false);
      expect(existsSync(other)).toBe(true);
      expect(existsSync(busy)).toBe(true);
      expect(existsSync(join(memory, 'agent/kubepods/besteffort'))).toBe(true);
      rmSync(join(busy, 'cgroup.procs'));
      expect(await removePodCgroups('A', '/agent/', true, { mountinfoPath: mountinfo, retryDelaysMs: [] })).toBe(true);
      expect(existsSync(join(cpu, 'agent/kubepods/burstable/podA'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes orphaned pod cgroups old enough and unused, and leaves known, young and busy ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pod-cgroups-'));
    try {
      const memory = join(dir, 'memory');
      const mountinfo = join(dir, 'mountinfo');
      writeFileSync(mountinfo, `1 0 0:1 / ${memory} rw - cgroup cgroup rw,memory\n`);
      const kubepods = join(memory, 'kubepods');
      const orphan = join(kubepods, 'besteffort/podgone');
      const guaranteedOrphan = join(kubepods, 'podgone2');
      const known = join(kubepods, 'besteffort/podrunning');
      const inUse = join(kubepods, 'burstable/podother/container');
      for (const path of [orphan, guaranteedOrphan, known, inUse]) mkdirSync(path, { recursive: true });
      // Directories made just now are too young; seen from two minutes later they are old enough.
      expect(await removeOrphanedPodCgroups(new Set(['running']), '', true, { mountinfoPath: mountinfo })).toBe(0);
      const later = Date.now() + 120_000;
      expect(await removeOrphanedPodCgroups(new Set(['running']), '', true, { mountinfoPath: mountinfo, now: later })).toBe(2);
      expect([orphan, guaranteedOrphan].map((path) => existsSync(path))).toEqual([false, false]);
      expect([known, inUse, join(kubepods, 'besteffort'), join(kubepods, 'burstable')].map((path) => existsSync(path))).toEqual([true, true, true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { chmod, lchown, lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/** The bits a file or directory of a volume owned by an fsGroup must carry (the kubelet's masks). */
function wantedMask(isDirectory: boolean, readOnly: boolean): number {
  return (readOnly ? RO_MASK : RW_MASK) | (isDirectory ? SETGID | EXEC_MASK : 0);
}

/** Whether the volume's root already carries the group and bits (`OnRootMismatch` then skips the walk). */
export async function ownershipMatches(dir: string, fsGroup: number, readOnly: boolean): Promise<boolean> {
  const info = await lstat(dir);
  const mask = wantedMask(info.isDirectory(), readOnly);
  return info.gid === fsGroup && (info.mode & mask) === mask;
}

async function changeOne(path: string, fsGroup: number, readOnly: boolean): Promise<boolean> {
  const info = await lstat(path);
  await lchown(path, -1, fsGroup);
  // A symlink's own bits mean nothing, and chmod would follow it out of the volume.
  if (info.isSymbolicLink()) return false;
  await chmod(path, (info.mode & 0o7777) | wantedMask(info.isDirectory(), readOnly));
  return info.isDirectory();
}

/**
 * Gives a volume to the pod's fsGroup as the kubelet's SetVolumeOwnership does for emptyDir and local
 * volumes: every file and directory gets the group (symlinks themselves, never what they point at),
 * group read/write (read only for a read-only volume), and directories also group execute and setgid
 * so that what is made in them later has the group too. `OnRootMismatch` skips the walk when the
 * root already has them; `Always` (the default) walks every time the volume is set up for a pod.
 */
export async function setVolumeOwnership(dir: string, fsGroup: number, readOnly: boolean, policy: string | undefined): Promise<void> {
  if (policy === 'OnRootMismatch' && (await ownershipMatches(dir, fsGroup, readOnly))) return;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (!(await changeOne(current, fsGroup, readOnly))) continue;
    const entries = await opendir(current);
    for await (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else await changeOne(path, fsGroup, readOnly);
    }
  }
}

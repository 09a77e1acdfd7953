import { execFile } from 'node:child_process';
import { readdir, readFile, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Undoes the octal escapes of /proc's mount tables (`\040` for a space). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Lazily unmounts whatever is mounted at or below `dir` (overlay root filesystems, network namespace handles, shm), deepest first. */
export async function unmountBelow(dir: string): Promise<void> {
  const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  const points = mounts
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((point): point is string => point !== undefined)
    .map(unescapeMountPath)
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) await run('umount', ['-l', point]).catch(() => undefined);
}

/** Deletes a network link (a bridge, a veth), in a named network namespace when given; gone already is fine. */
export async function deleteLink(name: string, netns?: string): Promise<void> {
  await run('ip', [...(netns ? ['-n', netns] : []), 'link', 'delete', name]).catch(() => undefined);
}

/** The mount points of every cgroup hierarchy whose root is the hierarchy's root (v1 controllers, named ones, the v2 tree). */
export async function cgroupMountPoints(): Promise<string[]> {
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const points = new Set<string>();
  for (const line of mountinfo.split('\n')) {
    const separator = line.indexOf(' - ');
    if (separator < 0) continue;
    const fsType = line.slice(separator + 3).split(' ')[0];
    const fields = line.slice(0, separator).split(' ');
    if ((fsType === 'cgroup' || fsType === 'cgroup2') && fields[3] === '/') points.add(unescapeMountPath(fields[4]));
  }
  return [...points];
}

async function removeTree(dir: string): Promise<boolean> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return true;
  }
  for (const entry of entries) if (entry.isDirectory()) await removeTree(join(dir, entry.name));
  return rmdir(dir).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}

/**
 * Removes a cgroup (`/svc/node-1`, relative to each hierarchy's root) and every cgroup below it, in
 * every hierarchy, deepest first; one still holding a process stays. Resolves whether all went.
 */
export async function removeCgroupTree(cgroup: string): Promise<boolean> {
  const relative = cgroup.replace(/^\/+/, '');
  if (relative === '' || relative.split('/').includes('..')) throw new Error(`refusing to remove the cgroup ${JSON.stringify(cgroup)}`);
  const results = await Promise.all((await cgroupMountPoints()).map((mount) => removeTree(join(mount, relative))));
  return results.every(Boolean);
}

import { readdir, readFile, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PodQosClass } from '@svc/api';
import { qosCgroup } from './container-resources';

/** Every QoS class: a pod's cgroup is looked for below each, so that one whose class is not known any more is found too. */
const QOS_CLASSES: readonly PodQosClass[] = ['Guaranteed', 'Burstable', 'BestEffort'];

/** Undoes mountinfo's octal escapes (`\040` for a space). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * The mount points of every cgroup hierarchy (each v1 controller mount, named ones such as
 * `name=systemd` included, and the v2 unified tree) whose root is the hierarchy's root, from
 * `/proc/self/mountinfo`'s text.
 */
export function cgroupMountPoints(mountinfo: string): string[] {
  const points = new Set<string>();
  for (const line of mountinfo.split('\n')) {
    const separator = line.indexOf(' - ');
    if (separator < 0) continue;
    const fsType = line.slice(separator + 3).split(' ')[0];
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    const fields = line.slice(0, separator).split(' ');
    if (fields[3] !== '/') continue;
    points.add(unescapeMountPath(fields[4]));
  }
  return [...points];
}

/** Removes a cgroup directory and the cgroups below it, deepest first; whether it is gone. One still holding a process stays. */
async function removeCgroupTree(dir: string): Promise<boolean> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return true;
  }
  for (const entry of entries) if (entry.isDirectory()) await removeCgroupTree(join(dir, entry.name));
  return rmdir(dir).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}

/** Waits before each further attempt: a pod's last processes may still be leaving its cgroup just after its sandbox went. */
const RETRY_DELAYS_MS = [250, 1_000, 3_000, 10_000];

/**
 * Removes a pod's cgroup (`<root>/kubepods[/tier]/pod<uid>`, in each QoS tier, so a pod whose class
 * is not known any more is found too) from every hierarchy once its sandboxes are gone, trying again
 * a few times over about 15 s while a hierarchy still holds it; resolves whether it is gone. runc
 * removes each container's own cgroup but leaves the parent it was given, so without this every pod
 * the node ever ran left a directory in every hierarchy.
 */
export async function removePodCgroups(
  uid: string,
  cgroupRoot: string,
  perQos: boolean,
  options: { mountinfoPath?: string; retryDelaysMs?: readonly number[] } = {},
): Promise<boolean> {
  if (!perQos || uid === '' || uid.includes('/')) return true;
  const mountinfo = await readFile(options.mountinfoPath ?? '/proc/self/mountinfo', 'utf8').catch(() => '');
  const paths = cgroupMountPoints(mountinfo).flatMap((mount) => QOS_CLASSES.map((qos) => join(mount, qosCgroup(cgroupRoot, qos), `pod${uid}`)));
  let remaining = paths;
  for (const delay of [0, ...(options.retryDelaysMs ?? RETRY_DELAYS_MS)]) {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay).unref());
    const gone = await Promise.all(remaining.map((path) => removeCgroupTree(path)));
    remaining = remaining.filter((_, i) => !gone[i]);
    if (remaining.length === 0) return true;
  }
  return false;
}

const POD_CGROUP = /^pod([0-9a-zA-Z-]+)$/;

/**
 * Removes the pod cgroups below `kubepods` that belong to none of the `known` pods (those the node
 * runs or still has sandboxes of), hold no process and no cgroup of their own, and are at least
 * `minAgeMs` old: what an agent stopped in the middle of a pod's teardown, or a runtime that lost
 * its sandboxes, left behind (the kubelet's cleanup of orphaned pod cgroups). Resolves how many went.
 */
export async function removeOrphanedPodCgroups(
  known: ReadonlySet<string>,
  cgroupRoot: string,
  perQos: boolean,
  options: { mountinfoPath?: string; minAgeMs?: number; now?: number } = {},
): Promise<number> {
  if (!perQos) return 0;
  const mountinfo = await readFile(options.mountinfoPath ?? '/proc/self/mountinfo', 'utf8').catch(() => '');
  const oldest = (options.now ?? Date.now()) - (options.minAgeMs ?? 60_000);
  let removed = 0;
  for (const mount of cgroupMountPoints(mountinfo)) {
    for (const qos of QOS_CLASSES) {
      const parent = join(mount, qosCgroup(cgroupRoot, qos));
      const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const uid = POD_CGROUP.exec(entry.name)?.[1];
        if (!entry.isDirectory() || uid === undefined || known.has(uid)) continue;
        const path = join(parent, entry.name);
        const info = await stat(path).catch(() => undefined);
        if (!info || info.mtimeMs > oldest) continue;
        // Only the pod's own directory: one with a cgroup below it (a container) is in use, and rmdir refuses it.
        if (
          await rmdir(path).then(
            () => true,
            () => false,
          )
        )
          removed++;
      }
    }
  }
  return removed;
}

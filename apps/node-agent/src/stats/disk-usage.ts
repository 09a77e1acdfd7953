import { lstat, opendir, statfs } from 'node:fs/promises';
import { join } from 'node:path';

/** A filesystem's size and free space, as statfs(2) gives them (the kubelet's MetricsStatFS). */
export interface FilesystemInfo {
  capacityBytes: number;
  availableBytes: number;
  usedBytes: number;
  inodes: number;
  inodesFree: number;
  inodesUsed: number;
}

/** The filesystem holding `path`, or undefined when it cannot be read. */
export async function filesystemInfo(path: string): Promise<FilesystemInfo | undefined> {
  try {
    const fs = await statfs(path);
    return {
      capacityBytes: fs.blocks * fs.bsize,
      availableBytes: fs.bavail * fs.bsize,
      usedBytes: (fs.blocks - fs.bfree) * fs.bsize,
      inodes: fs.files,
      inodesFree: fs.ffree,
      inodesUsed: fs.files - fs.ffree,
    };
  } catch {
    return undefined;
  }
}

/** What a directory tree holds: bytes on disk and inodes, as `du -sx` and `find -xdev` count them. */
export interface DiskUsage {
  bytes: number;
  inodes: number;
  /** The walk stopped at `maxEntries`: the figures are a lower bound. */
  truncated: boolean;
}

/** Entries one walk reads at most: a volume with more is reported as far as it was read. */
export const DEFAULT_MAX_ENTRIES = 1_000_000;

/**
 * The disk use of a tree (the kubelet's MetricsDu): blocks allocated (`st_blocks` × 512) of every
 * entry, each inode once (hard links), without leaving the tree's filesystem or following links.
 * Entries that vanish during the walk are skipped. Bounded by `maxEntries`.
 */
export async function diskUsage(root: string, maxEntries = DEFAULT_MAX_ENTRIES): Promise<DiskUsage | undefined> {
  let rootInfo;
  try {
    rootInfo = await lstat(root, { bigint: false });
  } catch {
    return undefined;
  }
  const seen = new Set<string>();
  const usage: DiskUsage = { bytes: 0, inodes: 0, truncated: false };
  const count = (info: { dev: number; ino: number; blocks: number; nlink: number }) => {
    if (info.nlink > 1) {
      const key = `${info.dev}:${info.ino}`;
      if (seen.has(key)) return;
      seen.add(key);
    }
    usage.bytes += info.blocks * 512;
    usage.inodes += 1;
  };
  count(rootInfo);
  if (!rootInfo.isDirectory()) return usage;
  const pending = [root];
  let entries = 1;
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let handle;
    try {
      handle = await opendir(dir);
    } catch {
      continue;
    }
    for await (const entry of handle) {
      if (++entries > maxEntries) {
        usage.truncated = true;
        return usage;
      }
      const path = join(dir, entry.name);
      const info = await lstat(path).catch(() => undefined);
      if (!info || info.dev !== rootInfo.dev) continue;
      count(info);
      if (info.isDirectory()) pending.push(path);
    }
  }
  return usage;
}

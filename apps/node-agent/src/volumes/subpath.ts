import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readFile, readlink, realpath, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { ContainerConfigError } from '../objects/container-config-error';
import { expandReferences } from '../containers/environment';

const run = promisify(execFile);

/** open(2)'s O_PATH (the same on x86-64 and arm64): a handle on the inode itself, never its content; Node does not name it. */
const O_PATH = 0o10000000;
/** Where a pod's subPath bind mounts live below its directory, as the kubelet names it. */
export const SUBPATH_DIRECTORY = 'volume-subpaths';

/** Whether `path` is `base` or below it (both absolute, already resolved). */
export function pathWithinBase(path: string, base: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * A volume mount's `subPathExpr` expanded from the container's environment (`$(VAR)`, `$$` an escaped
 * dollar), as the kubelet's ExpandContainerVolumeMounts: a name without a value (unset or empty) fails
 * the container.
 */
export function expandSubPathExpr(expr: string, env: ReadonlyMap<string, string>): string {
  const missing = new Set<string>();
  const expanded = expandReferences(expr, (name) => {
    const value = env.get(name);
    if (!value) missing.add(name);
    return value ?? '';
  });
  if (missing.size > 0) throw new ContainerConfigError(`missing value for ${[...missing].sort().join(', ')}`);
  return expanded;
}

/** A subPath (given or expanded) as the kubelet's makeMounts checks it before any file is touched. */
export function checkSubPath(subPath: string): void {
  if (isAbsolute(subPath)) throw new ContainerConfigError(`error SubPath \`${subPath}\` must not be an absolute path`);
  if (subPath.split('/').includes('..')) throw new ContainerConfigError(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
}

/**
 * Creates `subPath` below the volume `base` if it is missing, each directory with `mode`, never
 * through a symlink that leads out of the volume (the kubelet's SafeMakeDir). Throws when the path
 * would leave the volume or a non-directory is in the way.
 */
export async function safeMakeDir(base: string, subPath: string, mode: number): Promise<void> {
  const realBase = await realpath(base);
  const full = join(realBase, subPath);
  if (!pathWithinBase(full, realBase)) throw new Error(`path ${full} is outside of allowed base ${realBase}`);
  const info = await stat(full).catch(() => undefined);
  // An existing directory is left as it is: whether it stays in the volume is checked when it is opened.
  if (info) {
    if (!info.isDirectory()) throw new Error(`mkdir ${full}: not a directory`);
    return;
  }
  const segments = relative(realBase, full)
    .split(sep)
    .filter((s) => s !== '' && s !== '.');
  let current = realBase;
  let index = 0;
  for (; index < segments.length; index++) {
    const next = join(current, segments[index]);
    if (!(await lstat(next).catch(() => undefined))) break;
    current = next;
  }
  const existing = await realpath(current);
  if (!pathWithinBase(existing, realBase)) throw new Error(`path ${existing} is outside of allowed base ${realBase}`);
  current = existing;
  for (; index < segments.length; index++) {
    current = join(current, segments[index]);
    await mkdir(current, { mode }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    // What was made (or raced in) must be a directory inside the volume, not a symlink put in its place.
    const made = await lstat(current);
    if (!made.isDirectory()) throw new Error(`${current} is not a directory`);
    const real = await realpath(current);
    if (!pathWithinBase(real, realBase)) throw new Error(`path ${real} is outside of allowed base ${realBase}`);
    await chmod(current, mode);
  }
}

/** A subPath mount to prepare: which volume, container and mount it belongs to. */
export interface SubPathMount {
  /** The volume's directory on the host. */
  volumePath: string;
  /** The subPath below it (relative, checked). */
  subPath: string;
  podDir: string;
  volumeName: string;
  containerName: string;
  /** The mount's index among the container's volumeMounts. */
  mountIndex: number;
}

/** Where the subPath of one mount is bind-mounted for the runtime to mount into the container. */
export function subPathTarget(mount: SubPathMount): string {
  return join(mount.podDir, SUBPATH_DIRECTORY, mount.volumeName, mount.containerName, String(mount.mountIndex));
}

async function mountedAt(path: string): Promise<boolean> {
  const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  return mounts.split('\n').some((line) => line.split(' ')[1] === path);
}

/**
 * Binds the subPath of a volume to a path of the pod's own (the kubelet's PrepareSafeSubpath): the
 * path is resolved, must lie in the volume, is opened without following a last symlink, and what the
 * open reached is checked again through /proc before that very inode is bind-mounted. A symlink
 * swapped in between can thus not make the runtime mount anything outside the volume. Returns the
 * path to hand the runtime.
 */
export async function prepareSubPath(mount: SubPathMount): Promise<string> {
  const realVolume = await realpath(mount.volumePath);
  const path = join(mount.volumePath, mount.subPath);
  const realPath = await realpath(path).catch((error: Error) => {
    throw new Error(`error resolving symlinks in ${JSON.stringify(path)}: ${error.message}`);
  });
  if (!pathWithinBase(realPath, realVolume)) throw new Error(`subpath ${JSON.stringify(realPath)} not within volume path ${JSON.stringify(realVolume)}`);
  const handle = await open(realPath, O_PATH | constants.O_NOFOLLOW);
  try {
    const reached = await readlink(`/proc/self/fd/${handle.fd}`);
    if (!pathWithinBase(reached, realVolume)) throw new Error(`subpath ${JSON.stringify(reached)} not within volume path ${JSON.stringify(realVolume)}`);
    const info = await handle.stat();
    if (info.isSymbolicLink()) throw new Error(`symlink in path ${realPath}`);
    const target = subPathTarget(mount);
    if (await mountedAt(target)) {
      const current = await stat(target).catch(() => undefined);
      if (current && current.dev === info.dev && current.ino === info.ino) return target;
      await run('umount', [target]);
    }
    await mkdir(join(target, '..'), { recursive: true, mode: 0o750 });
    if (info.isDirectory()) await mkdir(target, { mode: 0o750 }).catch(() => undefined);
    else if (!(await stat(target).catch(() => undefined))) await writeFile(target, '', { mode: 0o640 });
    await run('mount', ['--no-canonicalize', '--bind', `/proc/${process.pid}/fd/${handle.fd}`, target]);
    return target;
  } finally {
    await handle.close();
  }
}

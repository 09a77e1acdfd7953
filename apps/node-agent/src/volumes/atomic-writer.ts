import { lstat, mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile, chmod } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';

export interface FileProjection {
  data: Buffer;
  mode: number;
}

const DATA_LINK = '..data';

function safeRelative(path: string): string {
  const clean = normalize(path);
  if (clean.startsWith('..') || clean.startsWith('/') || clean.split('/').some((part) => part.startsWith('..'))) {
    throw new Error(`invalid path ${JSON.stringify(path)}: must be relative and may not contain '..'`);
  }
  return clean;
}

async function currentPayload(dir: string, files: readonly string[]): Promise<Map<string, { data: Buffer; mode: number }> | undefined> {
  try {
    const target = await readlink(join(dir, DATA_LINK));
    const result = new Map<string, { data: Buffer; mode: number }>();
    for (const file of files) {
      const path = join(dir, target, file);
      result.set(file, { data: await readFile(path), mode: (await stat(path)).mode & 0o7777 });
    }
    return result;
  } catch {
    return undefined;
  }
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(dir, rel)));
    else out.push(rel);
  }
  return out;
}

/**
 * Writes a set of files into `dir` so that a reader never sees a mix of old and new: the files go
 * into a fresh timestamped directory, `..data` is switched to it with one rename, and each top-level
 * name is a symlink through `..data` (Kubernetes' AtomicWriter layout, which applications rely on to
 * notice updates). Returns whether anything changed.
 */
export async function writeAtomically(dir: string, payload: ReadonlyMap<string, FileProjection>): Promise<boolean> {
  const files = [...payload.keys()].map(safeRelative).sort();
  await mkdir(dir, { recursive: true });
  const existing = await currentPayload(dir, files);
  if (existing) {
    const previous = await listFiles(join(dir, await readlink(join(dir, DATA_LINK)))).catch(() => [] as string[]);
    const same =
      previous.length === files.length &&
      files.every((file) => {
        const now = payload.get(file)!;
        const before = existing.get(file);
        return before !== undefined && before.data.equals(now.data) && before.mode === now.mode;
      });
    if (same) return false;
  }
  const stamp = `..${new Date().toISOString().replace(/[-:.TZ]/g, '_')}${Math.random().toString(36).slice(2, 8)}`;
  const staging = join(dir, stamp);
  await mkdir(staging, { mode: 0o755 });
  for (const file of files) {
    const projection = payload.get(file)!;
    const path = join(staging, file);
    await mkdir(dirname(path), { recursive: true, mode: 0o755 });
    await writeFile(path, projection.data);
    await chmod(path, projection.mode);
  }
  const tmpLink = join(dir, '..data_tmp');
  await rm(tmpLink, { force: true });
  await symlink(stamp, tmpLink);
  await rename(tmpLink, join(dir, DATA_LINK));
  const topLevel = new Set(files.map((file) => file.split('/')[0]));
  for (const name of topLevel) {
    const link = join(dir, name);
    const info = await lstat(link).catch(() => undefined);
    if (info?.isSymbolicLink()) continue;
    if (info) await rm(link, { recursive: true, force: true });
    await symlink(join(DATA_LINK, name), link);
  }
  for (const entry of await readdir(dir)) {
    if (entry.startsWith('..')) {
      if (entry !== DATA_LINK && entry !== stamp) await rm(join(dir, entry), { recursive: true, force: true });
      continue;
    }
    if (!topLevel.has(entry)) await rm(join(dir, entry), { recursive: true, force: true });
  }
  return true;
}

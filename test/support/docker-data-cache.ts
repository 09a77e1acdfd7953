import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unmountBelow } from './docker-engine';

/** Where the container tests keep their Docker engine's data between runs; `none` keeps nothing. */
export const CACHE_DIR = process.env.SVC_CONTAINER_TEST_CACHE ?? '/var/cache/svc-container-tests';
/** Past this the cache is wiped before use: the next run starts cold, and the cache stays bounded. */
const MAX_CACHE_BYTES = 6 * 1024 ** 3;

/** A Docker data root for one test run: the cache's, held exclusively, or a fresh one when that is busy. */
export interface DockerDataRoot {
  /** undefined: a data root of the run's own, removed with its engine. */
  path: string | undefined;
  /** What the run starts from, for its log. */
  note: string;
  /** Records the engine's pid, so that a run after a killed one can stop that engine. */
  recordEngine(pid: number): void;
  release(): void;
}

interface LockContent {
  owner: number;
  engine?: number;
}

function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readLock(file: string): LockContent | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockContent;
  } catch {
    return undefined;
  }
}

function bytesUnder(dir: string): number {
  const du = spawnSync('du', ['-sb', '--one-file-system', dir], { encoding: 'utf8', timeout: 60_000 });
  return Number(du.stdout.split('\t')[0]) || 0;
}

/**
 * The image build dominates the container test: a cached data root keeps the stand-in base image and the
 * build's layers, so that a rerun rebuilds only what changed. One run at a time holds it (a lock file
 * with the holder's pid); a concurrent run gets a data root of its own and starts cold. An engine left
 * running by a killed run is stopped before its data root is reused.
 */
export function leaseDockerDataRoot(): DockerDataRoot {
  const fresh = (note: string): DockerDataRoot => ({ path: undefined, note, recordEngine: () => undefined, release: () => undefined });
  if (CACHE_DIR === 'none') return fresh('no cache (SVC_CONTAINER_TEST_CACHE=none): a cold build');
  const dataRoot = join(CACHE_DIR, 'docker');
  const lock = join(CACHE_DIR, 'lock');
  try {
    mkdirSync(CACHE_DIR, { recursive: true, mode: 0o700 });
  } catch (error) {
    return fresh(`no cache (${(error as Error).message}): a cold build`);
  }

  const held = readLock(lock);
  if (held && alive(held.owner) && held.owner !== process.pid) return fresh(`the cache ${CACHE_DIR} is in use by process ${held.owner}: a cold build`);
  if (held?.engine && alive(held.engine) && commandLineOf(held.engine).includes(dataRoot)) {
    // The engine of a run that was killed: ours (the tests started it), identified by its data root.
    process.kill(held.engine, 'SIGTERM');
    for (let i = 0; i < 300 && alive(held.engine); i++) sleepSync(100);
    if (alive(held.engine)) return fresh(`an earlier run's engine (pid ${held.engine}) on ${dataRoot} does not stop: a cold build`);
  }
  let content: LockContent = { owner: process.pid };
  writeFileSync(lock, JSON.stringify(content));
  // Another run may have written the lock at the same moment: the last writer holds it.
  sleepSync(100);
  if (readLock(lock)?.owner !== process.pid) return fresh(`the cache ${CACHE_DIR} was taken by another run: a cold build`);

  unmountBelow(dataRoot); // what a killed engine left mounted
  const size = bytesUnder(dataRoot);
  let note = `the cache ${dataRoot} (${(size / 1024 ** 2).toFixed(0)} MB)`;
  if (size > MAX_CACHE_BYTES) {
    rmSync(dataRoot, { recursive: true, force: true });
    note = `the cache ${dataRoot}, wiped at ${(size / 1024 ** 3).toFixed(1)} GB`;
  }
  return {
    path: dataRoot,
    note,
    recordEngine: (pid) => {
      content = { ...content, engine: pid };
      writeFileSync(lock, JSON.stringify(content));
    },
    release: () => {
      if (readLock(lock)?.owner === process.pid) rmSync(lock, { force: true });
    },
  };
}

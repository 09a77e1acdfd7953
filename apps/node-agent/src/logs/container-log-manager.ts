import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { CriClient } from '@svc/cri';
import { errorMessage } from '@svc/machinery';

export interface ContainerLogPolicy {
  /** `containerLogMaxSize` in bytes: a log reaching it is rotated. */
  maxSize: number;
  /** `containerLogMaxFiles`: the current log and the rotated ones together. */
  maxFiles: number;
  /** `containerLogMonitorInterval`. */
  monitorIntervalMs: number;
  /** `containerLogMaxWorkers`: containers rotated at once. */
  maxWorkers: number;
}

const COMPRESSED = '.gz';
const TEMPORARY = '.tmp';

/** The kubelet's rotation stamp, Go's `20060102-150405` in local time. */
function rotationStamp(now: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}-${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
}

/**
 * Rotates running containers' logs as the kubelet's container log manager does: every monitor
 * interval, a log of at least maxSize is renamed to `<log>.<stamp>` and the runtime asked to reopen
 * it (ReopenContainerLog); rotated files older than the newest are gzipped (`<log>.<stamp>.gz`), and
 * the oldest are removed so that the current log and the rotated ones are at most maxFiles. The newest
 * rotated file stays uncompressed, as the kubelet keeps it for readers still on it.
 */
export class ContainerLogManager {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly cri: CriClient,
    private readonly policy: ContainerLogPolicy,
    private readonly log: (message: string) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.rotateAll().finally(() => (this.running = undefined));
    }, this.policy.monitorIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One pass over the running containers (what each interval does). */
  async rotateAll(): Promise<void> {
    let containers;
    try {
      containers = await this.cri.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
    } catch (error) {
      this.log(`log rotation: cannot list containers: ${errorMessage(error)}`);
      return;
    }
    const queue = containers.filter((c) => c.state === 'CONTAINER_RUNNING').map((c) => c.id);
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        try {
          await this.rotateIfNeeded(id);
        } catch (error) {
          this.log(`log rotation of container ${id}: ${errorMessage(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.policy.maxWorkers) }, worker));
  }

  private async rotateIfNeeded(id: string): Promise<void> {
    const path = (await this.cri.containerStatus(id)).logPath;
    if (!path) return;
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch {
      // The log is gone (removed by hand): the runtime makes a new one.
      await this.cri.reopenContainerLog(id).catch(() => undefined);
      return;
    }
    if (size < this.policy.maxSize) return;
    await this.rotate(id, path);
  }

  private async rotate(id: string, path: string): Promise<void> {
    const dir = dirname(path);
    const prefix = `${basename(path)}.`;
    let rotated = (await readdir(dir)).filter((name) => name.startsWith(prefix)).map((name) => join(dir, name));
    rotated = await this.removeUnused(rotated);
    rotated.sort();
    // Beside the current log and the one rotated now, at most maxFiles - 2; the oldest go first.
    const keep = Math.max(0, this.policy.maxFiles - 2);
    while (rotated.length > keep) await unlink(rotated.shift()!).catch(() => undefined);
    for (const file of rotated) if (!file.endsWith(COMPRESSED)) await this.compress(file);
    const target = `${path}.${rotationStamp(new Date())}`;
    await rename(path, target);
    try {
      await this.cri.reopenContainerLog(id);
    } catch (error) {
      // As the kubelet: put the log back, the container keeps writing to it.
      await rename(target, path).catch(() => undefined);
      throw error;
    }
  }

  /** Drops what an interrupted compression left: temporary files, and originals whose `.gz` exists. */
  private async removeUnused(files: string[]): Promise<string[]> {
    const kept: string[] = [];
    for (const file of files) {
      const unused = file.endsWith(TEMPORARY) || (!file.endsWith(COMPRESSED) && files.includes(`${file}${COMPRESSED}`));
      if (unused) await unlink(file).catch(() => undefined);
      else kept.push(file);
    }
    return kept;
  }

  private async compress(file: string): Promise<void> {
    const temporary = `${file}${TEMPORARY}`;
    await pipeline(createReadStream(file), createGzip(), createWriteStream(temporary));
    await rename(temporary, `${file}${COMPRESSED}`);
    await unlink(file);
  }
}

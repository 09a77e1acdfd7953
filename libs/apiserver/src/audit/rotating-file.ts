import { closeSync, createReadStream, createWriteStream, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, write } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';

export interface RotatingFileOptions {
  path: string;
  /** Rotate before the file would grow past this many megabytes; 0 means 100, as lumberjack. */
  maxSizeMb: number;
  /** Rotated files kept; 0 keeps all. */
  maxBackups: number;
  /** Days a rotated file is kept, by the time in its name; 0 keeps them regardless of age. */
  maxAgeDays: number;
  /** Gzip rotated files. */
  compress: boolean;
  onError?: (error: unknown) => void;
}

const MB = 1024 * 1024;
const writeAt = promisify(write);
const DEFAULT_MAX_SIZE_MB = 100;

/**
 * An append-only log file rotated by size the way Kubernetes' audit log is (lumberjack): the full file
 * becomes `<name>-<UTC time>.<ext>`, optionally gzipped, and old ones are pruned by count and age.
 * Lines are appended in the order given; lines given while a write is under way go out together in the
 * next one (a group commit), so many concurrent requests cost one system call rather than one each, and
 * the event loop never waits on the disk. Files are created readable by their owner only: audit lines
 * name users and resources.
 */
export class RotatingFile {
  private fd: number;
  private size: number;
  private milling: Promise<void> = Promise.resolve();
  private readonly maxBytes: number;
  private queued: Buffer[] = [];
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly options: RotatingFileOptions) {
    this.maxBytes = (options.maxSizeMb > 0 ? options.maxSizeMb : DEFAULT_MAX_SIZE_MB) * MB;
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    this.fd = openSync(options.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  /** Resolves once every line is in the file; each line lands whole in one file. */
  append(lines: readonly string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      for (const line of lines) this.queued.push(Buffer.from(line));
      this.waiters.push({ resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Waits for queued lines, compression and pruning under way, then closes the file. */
  async close(): Promise<void> {
    await this.flushing;
    await this.milling;
    closeSync(this.fd);
  }

  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const lines = this.queued;
      const waiters = this.waiters;
      this.queued = [];
      this.waiters = [];
      try {
        let run: Buffer[] = [];
        let runBytes = 0;
        for (const line of lines) {
          if (this.size + runBytes + line.length > this.maxBytes && this.size + runBytes > 0) {
            await this.writeRun(run);
            run = [];
            runBytes = 0;
            this.rotate();
          }
          run.push(line);
          runBytes += line.length;
        }
        await this.writeRun(run);
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    this.flushing = undefined;
  }

  private async writeRun(run: Buffer[]): Promise<void> {
    if (run.length === 0) return;
    const data = run.length === 1 ? run[0] : Buffer.concat(run);
    let offset = 0;
    while (offset < data.length) {
      const { bytesWritten } = await writeAt(this.fd, data, offset, data.length - offset, null);
      offset += bytesWritten;
    }
    this.size += data.length;
  }

  private rotate(): void {
    closeSync(this.fd);
    const backup = this.backupName(new Date());
    renameSync(this.options.path, backup);
    this.fd = openSync(this.options.path, 'a', 0o600);
    this.size = 0;
    this.milling = this.milling.then(() => this.mill(backup)).catch((error: unknown) => this.options.onError?.(error));
  }

  private backupName(time: Date): string {
    const ext = extname(this.options.path);
    const stem = basename(this.options.path, ext);
    const stamp = time.toISOString().replace(/:/g, '-').replace('Z', '');
    return join(dirname(this.options.path), `${stem}-${stamp}${ext}`);
  }

  private async mill(backup: string): Promise<void> {
    if (this.options.compress) {
      await pipeline(createReadStream(backup), createGzip(), createWriteStream(`${backup}.gz`, { mode: 0o600 }));
      unlinkSync(backup);
    }
    const { maxBackups, maxAgeDays } = this.options;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const ext = extname(this.options.path);
    const stem = basename(this.options.path, ext);
    const dir = dirname(this.options.path);
    const pattern = new RegExp(`^${escape(stem)}-(\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3})${escape(ext)}(\\.gz)?$`);
    const backups = readdirSync(dir)
      .map((name) => ({ name, match: pattern.exec(name) }))
      .filter((b): b is { name: string; match: RegExpExecArray } => b.match !== null)
      .map((b) => ({ path: join(dir, b.name), time: Date.parse(`${b.match[1].replace(/T(\d\d)-(\d\d)-(\d\d)/, 'T$1:$2:$3')}Z`) }))
      .sort((a, b) => b.time - a.time);
    const cutoff = Date.now() - maxAgeDays * 24 * 3600 * 1000;
    backups.forEach((b, index) => {
      if ((maxBackups > 0 && index >= maxBackups) || (maxAgeDays > 0 && b.time < cutoff)) {
        try {
          if (statSync(b.path).isFile()) unlinkSync(b.path);
        } catch (error) {
          this.options.onError?.(error);
        }
      }
    });
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

import { open, stat, type FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { Counter } from 'prom-client';

/** What `/containerLogs` (and so `kubectl logs`) may ask for. */
export interface LogOptions {
  follow: boolean;
  tailLines?: number;
  sinceTime?: number;
  timestamps: boolean;
  limitBytes?: number;
}

/** One line of a CRI log file: `<RFC 3339 time> <stream> <P|F> <text>`; P lines continue in the next. */
interface LogLine {
  time: string;
  stream: string;
  partial: boolean;
  text: string;
}

export function parseLogLine(line: string): LogLine | undefined {
  const first = line.indexOf(' ');
  const second = line.indexOf(' ', first + 1);
  const third = line.indexOf(' ', second + 1);
  if (first < 0 || second < 0) return undefined;
  const tag = third < 0 ? line.slice(second + 1) : line.slice(second + 1, third);
  return { time: line.slice(0, first), stream: line.slice(first + 1, second), partial: tag === 'P', text: third < 0 ? '' : line.slice(third + 1) };
}

/** Splits file bytes into complete CRI records, joining partial ones; returns what is left over. */
function takeRecords(buffer: string, pending: { entry?: LogLine }): { records: LogLine[]; rest: string } {
  const records: LogLine[] = [];
  let start = 0;
  for (;;) {
    const end = buffer.indexOf('\n', start);
    if (end < 0) break;
    const parsed = parseLogLine(buffer.slice(start, end));
    start = end + 1;
    if (!parsed) continue;
    if (pending.entry) {
      pending.entry.text += parsed.text;
      pending.entry.partial = parsed.partial;
    } else pending.entry = parsed;
    if (!pending.entry.partial) {
      records.push(pending.entry);
      pending.entry = undefined;
    }
  }
  return { records, rest: buffer.slice(start) };
}

/** Bytes read from container log files to answer `/containerLogs`, on `/metrics`: a tail reads only the end. */
export const containerLogBytesRead = new Counter({
  name: 'nodeagent_container_log_read_bytes_total',
  help: 'Bytes the node agent read from container log files to serve logs',
  registers: [],
});

const TAIL_BLOCK = 64 * 1024;
/** A CRI line's head (`<RFC 3339 time> <stream> <tag> `) fits in this. */
const HEAD_BYTES = 128;

/** Whether a complete line ends a record (its tag is not P); undefined for a line that is no CRI line. */
function endsRecord(head: Buffer): boolean | undefined {
  const parsed = parseLogLine(head.toString('latin1'));
  return parsed ? !parsed.partial : undefined;
}

/**
 * Where the last `lines` records of a log start, found by reading blocks backwards from the end (as
 * the kubelet's tail does), and where its complete lines end (a line being written is left out).
 * A record is a run of P lines and the F line that ends it.
 */
export async function findTailStart(handle: FileHandle, size: number, lines: number): Promise<{ start: number; end: number }> {
  let end = -1;
  let records = 0;
  // The bytes that follow the current block (the heads of lines that start near its end).
  let after = Buffer.alloc(0);
  let lineEnd = -1;
  for (let blockEnd = size; blockEnd > 0;) {
    const blockStart = Math.max(0, blockEnd - TAIL_BLOCK);
    const block = Buffer.alloc(blockEnd - blockStart);
    const { bytesRead } = await handle.read(block, 0, block.length, blockStart);
    containerLogBytesRead.inc(bytesRead);
    const data = Buffer.concat([block.subarray(0, bytesRead), after]);
    for (let i = bytesRead - 1; i >= -1; i--) {
      if (i >= 0 && data[i] !== 0x0a) continue;
      if (i === -1 && blockStart > 0) break;
      const newline = blockStart + i;
      if (end < 0) {
        if (i < 0) break;
        // The last newline: what follows it is a line still being written.
        end = newline + 1;
        lineEnd = newline;
        continue;
      }
      // The line from newline + 1 to lineEnd is complete.
      if (endsRecord(data.subarray(i + 1, Math.min(i + 1 + HEAD_BYTES, data.length))) === true) {
        records++;
        if (records > lines) return { start: lineEnd + 1, end };
      }
      lineEnd = newline;
    }
    after = data.subarray(0, Math.min(HEAD_BYTES, data.length));
    blockEnd = blockStart;
  }
  return { start: 0, end: Math.max(end, 0) };
}

/** How much of a log file one read takes at most. */
const READ_CHUNK = 4 * 1024 * 1024;
/** How often a followed log is looked at for new lines. */
const FOLLOW_POLL_MS = 200;

/** Reads one container's log file onwards from a position, as complete records, across truncations and rotations. */
class LogFileReader {
  private position = 0;
  private rest = '';
  private readonly pending: { entry?: LogLine } = {};

  constructor(
    private readonly path: string,
    private handle: FileHandle,
  ) {}

  size(): Promise<number> {
    return this.handle.stat().then((s) => s.size);
  }

  /** Where the last `lines` records start and the complete lines end. */
  tail(size: number, lines: number): Promise<{ start: number; end: number }> {
    return findTailStart(this.handle, size, lines);
  }

  seek(position: number): void {
    this.position = position;
  }

  get offset(): number {
    return this.position;
  }

  /** The complete records written since the last read. */
  async readMore(): Promise<LogLine[]> {
    const size = await this.size();
    if (size < this.position) {
      // Truncated (rotated in place): start over.
      this.position = 0;
      this.rest = '';
    }
    if (size === this.position) return [];
    const chunk = Buffer.alloc(Math.min(size - this.position, READ_CHUNK));
    const { bytesRead } = await this.handle.read(chunk, 0, chunk.length, this.position);
    containerLogBytesRead.inc(bytesRead);
    this.position += bytesRead;
    const taken = takeRecords(this.rest + chunk.subarray(0, bytesRead).toString('utf8'), this.pending);
    this.rest = taken.rest;
    return taken.records;
  }

  /** After a rotation the path names a new file: once the old one is drained, it is read from its start. */
  async rotated(): Promise<boolean> {
    const current = await stat(this.path).catch(() => undefined);
    if (!current || current.ino === (await this.handle.stat()).ino) return false;
    const next = await open(this.path, 'r').catch(() => undefined);
    if (!next) return false;
    await this.handle.close();
    this.handle = next;
    this.position = 0;
    this.rest = '';
    return true;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** Writes records as `kubectl logs` shows them (the time first when asked), from `sinceTime` on, at most `limitBytes`. */
function recordWriter(options: LogOptions, out: Writable): (records: readonly LogLine[]) => boolean {
  let written = 0;
  const limit = options.limitBytes;
  const write = (record: LogLine): boolean => {
    if (options.sinceTime !== undefined && Date.parse(record.time) < options.sinceTime) return true;
    let text = `${options.timestamps ? `${record.time} ` : ''}${record.text}\n`;
    if (limit !== undefined) {
      if (written >= limit) return false;
      if (written + Buffer.byteLength(text) > limit)
        text = Buffer.from(text)
          .subarray(0, limit - written)
          .toString('utf8');
    }
    written += Buffer.byteLength(text);
    out.write(text);
    return limit === undefined || written < limit;
  };
  // Whether to go on: false once the limit is reached.
  return (records) => records.every(write);
}

/** The last `lines` records: only the tail's complete lines, at most the tail's bytes; the rest is left to following. */
async function tailRecords(reader: LogFileReader, lines: number): Promise<LogLine[]> {
  let records: LogLine[] = [];
  const size = await reader.size();
  const { start, end } = await reader.tail(size, lines);
  reader.seek(start);
  while (reader.offset < end) {
    const more = await reader.readMore();
    records = records.concat(more);
    if (more.length === 0 && reader.offset >= size) break;
  }
  return lines === 0 ? [] : records.slice(-lines);
}

/** New records as they are written, until the container is done and the file drained, or the client goes. */
async function follow(
  reader: LogFileReader,
  write: (records: readonly LogLine[]) => boolean,
  stillRunning: () => Promise<boolean>,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    const more = await reader.readMore();
    if (!write(more)) return;
    if (more.length > 0) continue;
    if (await reader.rotated()) continue;
    // One last read when it has exited: lines written just before the exit.
    if (!(await stillRunning())) return void write(await reader.readMore());
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
  }
}

/**
 * Streams a container's CRI log file as `kubectl logs` shows it: the text of each line (with its time
 * first when asked), the last `tailLines` (found from the end of the file), lines since a time, at
 * most `limitBytes`; when following, new lines as they are written until `stillRunning` says the
 * container is done and the file is drained. A rotation (the file renamed and a new one opened by the
 * runtime) is followed to the new file once the old one is drained.
 */
export async function streamContainerLog(
  path: string,
  options: LogOptions,
  out: Writable,
  stillRunning: () => Promise<boolean>,
  signal: AbortSignal,
): Promise<void> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return;
  const reader = new LogFileReader(path, handle);
  const write = recordWriter(options, out);
  try {
    if (options.tailLines !== undefined) {
      if (!write(await tailRecords(reader, options.tailLines))) return;
    } else {
      for (let more = await reader.readMore(); more.length > 0; more = await reader.readMore()) if (!write(more)) return;
    }
    if (options.follow) await follow(reader, write, stillRunning, signal);
  } finally {
    await reader.close();
  }
}

export async function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

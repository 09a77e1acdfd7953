import { open, stat, type FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';

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

/**
 * Streams a container's CRI log file as `kubectl logs` shows it: the text of each line (with its time
 * first when asked), the last `tailLines`, lines since a time, at most `limitBytes`; when following,
 * new lines as they are written until `stillRunning` says the container is done and the file is drained.
 */
export async function streamContainerLog(
  path: string,
  options: LogOptions,
  out: Writable,
  stillRunning: () => Promise<boolean>,
  signal: AbortSignal,
): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch {
    return;
  }
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
  try {
    const pending: { entry?: LogLine } = {};
    let position = 0;
    let rest = '';
    const readMore = async (): Promise<LogLine[]> => {
      const size = (await handle.stat()).size;
      if (size < position) {
        // Truncated (rotated in place): start over.
        position = 0;
        rest = '';
      }
      if (size === position) return [];
      const chunk = Buffer.alloc(Math.min(size - position, 4 * 1024 * 1024));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      position += bytesRead;
      const taken = takeRecords(rest + chunk.subarray(0, bytesRead).toString('utf8'), pending);
      rest = taken.rest;
      return taken.records;
    };
    let initial: LogLine[] = [];
    for (;;) {
      const more = await readMore();
      if (more.length === 0) break;
      initial = initial.concat(more);
      if (options.tailLines !== undefined && initial.length > options.tailLines * 2) initial = initial.slice(-options.tailLines);
    }
    if (options.tailLines !== undefined) initial = options.tailLines === 0 ? [] : initial.slice(-options.tailLines);
    for (const record of initial) if (!write(record)) return;
    if (!options.follow) return;
    while (!signal.aborted) {
      const more = await readMore();
      for (const record of more) if (!write(record)) return;
      if (more.length === 0) {
        if (!(await stillRunning())) {
          // One last read: lines written just before the exit.
          for (const record of await readMore()) if (!write(record)) return;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    await handle.close();
  }
}

export async function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Child processes of the benchmark. Every child is registered here, so that an error, an exit or a
 * signal in the benchmark never leaves a server running behind it.
 */
const children = new Set<ChildProcess>();

function killAllNow(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAllNow();
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

let guarded = false;

function guard(): void {
  if (guarded) return;
  guarded = true;
  process.on('exit', killAllNow);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** Removes the exit and signal handlers once no child is left, so the runner's next benchmark starts clean. */
function unguardIfIdle(): void {
  if (!guarded || children.size > 0) return;
  guarded = false;
  process.off('exit', killAllNow);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

const OUTPUT_TAIL_CHARS = 4_000;

export interface Child {
  process: ChildProcess;
  pid: number;
  /** The last few thousand characters the child wrote to stdout and stderr, for error messages. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the child has exited. */
  exited: Promise<string>;
  /** SIGTERM, then SIGKILL if the child has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `node <script> <args>` with piped output; `onLine` sees each stdout line (e.g. to learn a port). */
export function startNodeChild(script: string, args: readonly string[], onLine?: (line: string) => void): Child {
  guard();
  // BENCH_CHILD_NODE_ARGS passes Node flags to every child (`--cpu-prof --cpu-prof-dir=...` to profile them).
  const nodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let tail = '';
  let pending = '';
  const keep = (text: string): void => {
    tail = (tail + text).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.setEncoding('utf8').on('data', (text: string) => {
    keep(text);
    if (!onLine) return;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  child.stderr?.setEncoding('utf8').on('data', keep);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      unguardIfIdle();
      resolve(signal ?? String(code));
    });
    child.once('error', (error) => {
      keep(`\n${error.message}`);
      children.delete(child);
      unguardIfIdle();
      resolve('spawn error');
    });
  });
  return {
    process: child,
    pid: child.pid ?? -1,
    output: () => tail,
    exited,
    async stop(graceMs = 5_000): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, graceMs);
      });
      await Promise.race([exited, killed]);
      clearTimeout(timer);
      await exited;
    },
  };
}

// USER_HZ, the unit of /proc/<pid>/stat times: 100 on every mainstream Linux build.
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) a process has used so far in microseconds, from /proc; undefined where
 * /proc is not available. Lets the report show server cost per request independent of the client.
 */
export function processCpuMicros(pid: number): number | undefined {
  if (pid === process.pid) {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return undefined;
  }
}

/**
 * A memory figure of a process in MiB from /proc/<pid>/status: VmRSS (resident now) or VmHWM (the
 * peak resident size); '?' where /proc is not available.
 */
export function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): string {
  try {
    const kib = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? (Number(kib) / 1024).toFixed(0) : '?';
  } catch {
    return '?';
  }
}

import { spawn } from 'node:child_process';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command that failed; the message carries its first lines of error output. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
  constructor(
    readonly command: string,
    readonly result: CommandResult,
  ) {
    super(`${command} failed (${result.code ?? 'killed'}): ${result.stderr.trim().split('\n').slice(0, 6).join(' | ') || result.stdout.trim().slice(0, 300)}`);
  }
}

const TIMEOUT_MS = 60_000;
// An nft listing of a large table is megabytes; more than this is not one of ours.
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** Runs `file args`, writing `input` to its stdin; resolves with its exit and output, rejects only when it cannot start. */
export function runCommand(file: string, args: readonly string[], input?: string, timeoutMs = TIMEOUT_MS): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const keep = (list: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else list.push(chunk);
    };
    child.stdout.on('data', keep(out));
    child.stderr.on('data', keep(err));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

/** Runs a command and throws CommandError unless it exits 0. */
export async function runChecked(file: string, args: readonly string[], input?: string): Promise<string> {
  const result = await runCommand(file, args, input);
  if (result.code !== 0) throw new CommandError(`${file} ${args.join(' ')}`, result);
  return result.stdout;
}

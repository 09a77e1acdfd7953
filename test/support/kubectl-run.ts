import { type ChildProcess, spawn } from 'node:child_process';

export const KUBECTL = '/usr/bin/kubectl';

export interface KubectlResult {
  /** Exit code, or null when the process was killed (timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl to completion whatever its exit code, stdin closed, killed after `timeoutMs`. The
 * request timeout flag keeps a hanging server from holding kubectl until the kill.
 */
export function runKubectl(args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    // Before `--`, so that the flag never ends up among the arguments of a command run in a container.
    const flag = `--request-timeout=${Math.max(1, Math.floor(timeoutMs / 1000) - 1)}s`;
    const dashes = args.indexOf('--');
    const withFlag = dashes < 0 ? [...args, flag] : [...args.slice(0, dashes), flag, ...args.slice(dashes)];
    const child = spawn(KUBECTL, withFlag, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs kubectl like {@link runKubectl} and fails with its stderr unless it exits 0. */
export async function kubectl(args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<{ stdout: string; stderr: string }> {
  const result = await runKubectl(args, env, timeoutMs);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code ?? 'on timeout'}: ${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr };
}

/** A long-running kubectl (e.g. `get -w`) whose output is read while it runs. */
export interface KubectlSession {
  output(): string;
  errors(): string;
  /** Resolves once the output matches, or rejects with the output so far when the time is up or kubectl exits. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Kills kubectl and waits for it to exit. */
  stop(): Promise<void>;
}

export function spawnKubectl(args: string[], env: Record<string, string>, maxLifetimeMs = 60_000): KubectlSession {
  const child: ChildProcess = spawn(KUBECTL, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exited = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    wake();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    wake();
  });
  const exit = new Promise<void>((resolve) =>
    child.on('close', () => {
      exited = true;
      wake();
      resolve();
    }),
  );
  const lifetime = setTimeout(() => child.kill('SIGKILL'), maxLifetimeMs);

  return {
    output: () => stdout,
    errors: () => stderr,
    waitForOutput: (pattern, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(stdout)) {
            finish();
            resolve(stdout);
          } else if (exited) {
            finish();
            reject(new Error(`kubectl exited before its output matched ${pattern}:\n${stdout}\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`kubectl output did not match ${pattern} in ${timeoutMs} ms:\n${stdout}\n${stderr}`));
        }, timeoutMs);
        function finish() {
          clearTimeout(timer);
          waiters.delete(check);
        }
        waiters.add(check);
        check();
      }),
    stop: async () => {
      clearTimeout(lifetime);
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}

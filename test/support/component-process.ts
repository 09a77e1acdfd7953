import { spawn } from 'node:child_process';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { freeLoopbackPort, ROOT, stopChild, type ApiServerProcess } from './apiserver-process';
import { httpsFetch } from './https-client';

/** A control plane component (controller manager, scheduler) running as its own process. */
export interface ComponentProcess {
  /** HTTPS port of /healthz, /readyz and /metrics. */
  port: number;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Whether the process has exited. */
  exited(): boolean;
  /** GET on the process's HTTPS endpoint (self-signed certificate). */
  get(path: string): Promise<{ status: number; body: string }>;
  /** Kills the process at once (SIGKILL), as a crash would: its lease is left to expire. */
  kill(): Promise<void>;
  /** SIGTERM (graceful: releases its lease), SIGKILL after 5 s. */
  stop(): Promise<void>;
}

const insecure = new Agent({ rejectUnauthorized: false });

/**
 * Runs the built executable `name` (`svc-controller-manager`, `svc-scheduler`) against an API server
 * process, serving its probes on a free loopback port, and resolves once /readyz answers 200
 * (informers synced).
 */
export async function startComponentProcess(
  name: string,
  apiserver: ApiServerProcess,
  args: string[] = [],
  readyTimeoutMs = 30_000,
): Promise<ComponentProcess> {
  const port = await freeLoopbackPort();
  const executable = join(ROOT, 'bin', `${name}.js`);
  // A --svcconfig among the arguments (another identity's connection file) replaces the server's own.
  const svcconfig = args.some((a) => a.startsWith('--svcconfig=')) ? [] : [`--svcconfig=${apiserver.kubeconfig}`];
  const child = spawn(process.execPath, [executable, ...svcconfig, '--bind-address=127.0.0.1', `--secure-port=${port}`, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let hasExited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      hasExited = true;
      resolve();
    }),
  );
  const get = async (path: string) => {
    const res = await httpsFetch(`https://127.0.0.1:${port}${path}`, { agent: insecure });
    return { status: res.status, body: res.body };
  };
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (hasExited) throw new Error(`${name} exited before it was ready: ${stderr}`);
    if (Date.now() > deadline) {
      await stopChild(child, exit, () => hasExited);
      throw new Error(`${name} was not ready in time; stderr: ${stderr}`);
    }
    const ready = await get('/readyz').catch(() => undefined);
    if (ready?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    pid: child.pid ?? 0,
    stdout: () => stdout,
    stderr: () => stderr,
    exited: () => hasExited,
    get,
    kill: async () => {
      if (hasExited) return;
      child.kill('SIGKILL');
      await exit;
    },
    stop: () => stopChild(child, exit, () => hasExited),
  };
}

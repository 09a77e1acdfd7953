import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, stopChild } from './apiserver-process';

/** The built `svc-ingress` running as a process of its own. */
export interface IngressProcess {
  httpPort: number;
  httpsPort: number;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, SIGKILL after a while. */
  stop(): Promise<void>;
}

/** Starts svc-ingress on free ports of `bindAddress` and resolves once it says it serves (after its caches synced). */
export async function startIngressProcess(options: {
  svcconfig: string;
  bindAddress: string;
  args?: string[];
  readyTimeoutMs?: number;
}): Promise<IngressProcess> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'svc-ingress.js'),
      `--svcconfig=${options.svcconfig}`,
      `--bind-address=${options.bindAddress}`,
      '--http-port=0',
      '--https-port=0',
      ...(options.args ?? []),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  let exited = false;
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  const stop = () => stopChild(child, exit, () => exited);
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    const served = /on http:\/\/[^ ]+:(\d+) and https:\/\/[^ ]+:(\d+)/.exec(stdout);
    if (served) return { httpPort: Number(served[1]), httpsPort: Number(served[2]), stdout: () => stdout, stderr: () => stderr, stop };
    if (exited) throw new Error(`svc-ingress exited: ${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`svc-ingress did not serve within ${options.readyTimeoutMs ?? 30_000} ms: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

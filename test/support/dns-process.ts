import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, stopChild } from './apiserver-process';

/** The built `svc-dns` running as a process of its own. */
export interface DnsProcess {
  /** The port it serves, UDP and TCP (the one it got for `--port=0`). */
  port: number;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, SIGKILL after a while. */
  stop(): Promise<void>;
}

export interface StartDnsOptions {
  /** The connection file of the identity it acts as. */
  svcconfig: string;
  bindAddress: string;
  /** 0 for a free one. */
  port: number;
  /** `--resolv-conf`: empty forwards nothing. */
  resolvConf: string;
  args?: string[];
  readyTimeoutMs?: number;
}

/** Starts svc-dns and resolves once it says it serves, which it does only after its caches synced. */
export async function startDnsProcess(options: StartDnsOptions): Promise<DnsProcess> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'svc-dns.js'),
      `--svcconfig=${options.svcconfig}`,
      `--bind-address=${options.bindAddress}`,
      `--port=${options.port}`,
      `--resolv-conf=${options.resolvConf}`,
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
  const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    const served = new RegExp(`on ${host.replace(/[.[\]]/g, '\\$&')}:(\\d+)`).exec(stdout);
    if (served) return { port: Number(served[1]), stdout: () => stdout, stderr: () => stderr, stop };
    if (exited) throw new Error(`svc-dns exited: ${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`svc-dns did not serve within ${options.readyTimeoutMs ?? 30_000} ms: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, loadClientConfig } from '@svc/client';
import { ROOT } from './apiserver-process';

const EXECUTABLE = join(ROOT, 'bin', 'svc-apiserver.js');
const ENTRY = join(ROOT, 'dist', 'apps', 'apiserver', 'src', 'main.js');

/**
 * The built `svc-apiserver` on a fixed loopback port and data directory, so that it can be stopped
 * and started again as the same server (same data, certificates and address).
 */
export class RestartableApiServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  private stderr = '';
  readonly svcconfig: string;

  constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.svcconfig = join(dir, 'svcconfig');
  }

  static assertBuilt(): void {
    if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run "npm run build" before this end-to-end test`);
  }

  async start(extraArgs: string[] = []): Promise<void> {
    await rm(this.svcconfig, { force: true });
    this.stderr = '';
    const child = spawn(
      process.execPath,
      [
        EXECUTABLE,
        '--bind-address=127.0.0.1',
        `--secure-port=${this.port}`,
        `--data-dir=${join(this.dir, 'data')}`,
        `--cert-dir=${join(this.dir, 'certs')}`,
        `--svcconfig-out=${this.svcconfig}`,
        ...extraArgs,
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    this.child = child;
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`svc-apiserver exited before it was ready: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`svc-apiserver was not ready in time: ${this.stderr}`);
      if (existsSync(this.svcconfig)) {
        const probe = new Client(await loadClientConfig({ svcconfig: this.svcconfig }));
        const ready = await probe.rest.requestText({ method: 'GET', path: '/readyz' }).then(
          () => true,
          () => false,
        );
        probe.close();
        if (ready) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  logs(): string {
    return this.stderr;
  }
}

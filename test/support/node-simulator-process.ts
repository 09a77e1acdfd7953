import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, stopChild, type ApiServerProcess } from './apiserver-process';

export interface NodeSimulatorProcess {
  pid: number;
  output(): string;
  /** SIGKILL: the nodes stop renewing their leases at once, as when their agents crash. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/** Runs the built `svc-node-simulator` with `args` and resolves once its nodes are registered. */
export async function startNodeSimulatorProcess(apiserver: ApiServerProcess, args: string[], readyTimeoutMs = 30_000): Promise<NodeSimulatorProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'svc-node-simulator.js'), `--svcconfig=${apiserver.kubeconfig}`, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + readyTimeoutMs;
  while (!/Running \d+ simulated node/.test(output)) {
    if (exited) throw new Error(`svc-node-simulator exited before its nodes ran: ${output}`);
    if (Date.now() > deadline) {
      await stopChild(child, exit, () => exited);
      throw new Error(`svc-node-simulator did not start in time: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    pid: child.pid ?? 0,
    output: () => output,
    kill: async () => {
      if (exited) return;
      child.kill('SIGKILL');
      await exit;
    },
    stop: () => stopChild(child, exit, () => exited),
  };
}

import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, stopChild } from './apiserver-process';

/** Where the proxy runs: a node's network namespace, its name, its address and its pods' range. */
export interface ProxyNode {
  netns: string;
  name: string;
  nodeIp: string;
  podCidr: string;
}

const EXECUTABLE = join(ROOT, 'bin', 'svc-proxy.js');

export interface ProxyProcess {
  /** `http://<node ip>:<port>` of /healthz and /livez. */
  healthzUrl: string;
  /** `http://<node ip>:<port>` of /metrics. */
  metricsUrl: string;
  stdout(): string;
  stderr(): string;
  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** SIGTERM (SIGKILL after 5 s); resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Runs the built `svc-proxy` inside `node`'s network namespace, connected through `svcconfig`, as
 * node `node.name` with `--bind-address` the node's IP, health and metrics on the node's IP (so that
 * the test reaches them from the host); resolves once its first sync is done.
 */
export async function startProxyProcess(node: ProxyNode, svcconfig: string, args: string[] = [], readyTimeoutMs = 30_000): Promise<ProxyProcess> {
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      node.netns,
      process.execPath,
      EXECUTABLE,
      `--svcconfig=${svcconfig}`,
      `--hostname-override=${node.name}`,
      `--bind-address=${node.nodeIp}`,
      `--cluster-cidr=${node.podCidr}`,
      `--healthz-bind-address=${node.nodeIp}:0`,
      `--metrics-bind-address=${node.nodeIp}:0`,
      ...args,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    }),
  );
  const deadline = Date.now() + readyTimeoutMs;
  while (!/^Rules synced$/m.test(stdout)) {
    if (exited) throw new Error(`svc-proxy exited (${exited.code ?? exited.signal}) before its first sync: ${stderr}`);
    if (Date.now() > deadline) {
      await stopChild(child, exit, () => exited !== undefined);
      throw new Error(`svc-proxy did not sync in time; stderr: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const port = (what: string) => /Serving \S+ on (\S+)/.exec(stdout.split('\n').find((l) => l.startsWith(`Serving ${what} on`)) ?? '')?.[1];
  return {
    healthzUrl: `http://${port('healthz')}`,
    metricsUrl: `http://${port('metrics')}`,
    stdout: () => stdout,
    stderr: () => stderr,
    exitStatus: () => exited,
    stop: () => stopChild(child, exit, () => exited !== undefined),
  };
}

/** Runs `svc-proxy` with `args` to its end inside `node`'s namespace (for `--cleanup`). */
export function runProxyCommand(node: ProxyNode, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('ip', ['netns', 'exec', node.netns, process.execPath, EXECUTABLE, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

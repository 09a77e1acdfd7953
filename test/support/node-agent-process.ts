import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freeLoopbackPort, ROOT, type ApiServerProcess } from './apiserver-process';
import { kubectl } from './kubectl-run';

const EXECUTABLE = join(ROOT, 'bin', 'svc-node-agent.js');

/** Lazily unmounts what pods left mounted under `dir` (tmpfs emptyDirs of pods the agent never tore down). */
async function unmountBelow(dir: string): Promise<void> {
  const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  const below = mounts
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((point): point is string => point !== undefined && point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of below) await new Promise((resolve) => execFile('umount', ['-l', point], resolve));
}

export interface NodeAgentProcess {
  nodeName: string;
  /** The secured server's port. */
  port: number;
  healthzPort: number;
  dir: string;
  rootDir: string;
  pid(): number;
  stdout(): string;
  stderr(): string;
  exited(): boolean;
  /** SIGKILL, as a crash: the containers it runs stay. */
  kill(): Promise<void>;
  /** SIGTERM, SIGKILL after 5 s. */
  stop(): Promise<void>;
  /** Starts the agent again with the same directories and configuration (after kill or stop). */
  restart(): Promise<void>;
  /** Stops it if running and removes its directories. */
  cleanup(): Promise<void>;
}

export interface StartNodeAgentOptions {
  nodeName?: string;
  /** The CRI endpoint of the runtime. */
  endpoint: string;
  /** Fields of NodeAgentConfiguration beyond the ones the test harness sets. */
  config?: Record<string, unknown>;
  args?: string[];
  readyTimeoutMs?: number;
  /** Called with everything the agent has written to stderr so far, as it writes (before it is ready too). */
  onStderr?: (stderr: string) => void;
}

/**
 * Runs the built `svc-node-agent` against an API server process and a runtime, on loopback
 * (`--node-ip=127.0.0.1`), with its own root, certificate and log directories and free ports, and
 * resolves once it has registered its Node.
 */
export async function startNodeAgentProcess(apiserver: ApiServerProcess, options: StartNodeAgentOptions): Promise<NodeAgentProcess> {
  await publishRootCa(apiserver);
  const dir = await mkdtemp(join(tmpdir(), 'svc-node-agent-e2e-'));
  const nodeName = options.nodeName ?? `node-${Math.random().toString(36).slice(2, 8)}`;
  const port = await freeLoopbackPort();
  const healthzPort = await freeLoopbackPort();
  const configPath = join(dir, 'config.yaml');
  await writeFile(
    configPath,
    stringify({
      apiVersion: 'nodeagent.config.svc.io/v1beta1',
      kind: 'NodeAgentConfiguration',
      address: '127.0.0.1',
      port,
      healthzPort,
      authorization: { mode: 'AlwaysAllow' },
      authentication: { anonymous: { enabled: true } },
      resolvConf: '',
      failSwapOn: false,
      nodeStatusUpdateFrequency: '2s',
      syncFrequency: '10s',
      fileCheckFrequency: '1s',
      ...(options.config ?? {}),
    }),
  );
  const rootDir = join(dir, 'root');
  const args = [
    EXECUTABLE,
    `--config=${configPath}`,
    `--svcconfig=${apiserver.kubeconfig}`,
    `--hostname-override=${nodeName}`,
    '--node-ip=127.0.0.1',
    `--container-runtime-endpoint=${options.endpoint}`,
    `--root-dir=${rootDir}`,
    `--cert-dir=${join(dir, 'pki')}`,
    ...(options.args ?? []),
  ];
  let child: ChildProcess;
  let stdout = '';
  let stderr = '';
  let hasExited = true;
  let exit: Promise<void> = Promise.resolve();
  const launch = async () => {
    child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    hasExited = false;
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onStderr?.(stderr);
    });
    exit = new Promise<void>((resolve) =>
      child.on('exit', () => {
        hasExited = true;
        resolve();
      }),
    );
    const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
    const marker = stderr.length;
    for (;;) {
      if (hasExited) throw new Error(`svc-node-agent exited before it was ready: ${stderr}`);
      if (stderr.slice(marker).includes(`node ${nodeName} running pods`)) return;
      if (Date.now() > deadline) throw new Error(`svc-node-agent was not ready in time: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const stopWith = async (signal: NodeJS.Signals) => {
    if (hasExited) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exit;
    clearTimeout(timer);
  };
  await launch();
  return {
    nodeName,
    port,
    healthzPort,
    dir,
    rootDir,
    pid: () => child.pid ?? 0,
    stdout: () => stdout,
    stderr: () => stderr,
    exited: () => hasExited,
    kill: () => stopWith('SIGKILL'),
    stop: () => stopWith('SIGTERM'),
    restart: launch,
    cleanup: async () => {
      await stopWith('SIGTERM');
      await unmountBelow(dir);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Every pod gets the kube-api-access projected volume (the ServiceAccount admission plugin), whose
 * `kube-root-ca.crt` ConfigMap the controller manager's root CA publisher writes. No controller
 * manager runs beside these agents, so this does its job for the `default` namespace.
 */
async function publishRootCa(apiserver: ApiServerProcess): Promise<void> {
  const file = join(apiserver.dir, 'kube-root-ca.crt.yaml');
  await writeFile(
    file,
    stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': apiserver.ca } }),
  );
  await kubectl(['apply', '-f', file], apiserver.kubectlEnv);
}

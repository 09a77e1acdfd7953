import { execFile, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DOCKER = '/usr/bin/docker';
export const DOCKERD = '/usr/sbin/dockerd';
export const DOCKER_COMPOSE = '/usr/bin/docker-compose';

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

export interface CommandResult {
  stdout: string;
  stderr: string;
}

/**
 * A Docker engine of a test's own: its state and socket in a temporary directory, gone after stop(), and
 * its data there too unless the test passes a data root to keep (a build cache).
 */
export interface DockerEngine {
  dir: string;
  /** DOCKER_HOST and nothing else of the host's Docker configuration. */
  env: Record<string, string>;
  /** Runs a command against this engine; fails with its output unless it exits 0 within the time. */
  run(command: string, args: string[], options?: { timeoutMs?: number; env?: Record<string, string> }): Promise<CommandResult>;
  docker(args: string[], timeoutMs?: number): Promise<CommandResult>;
  pid: number | undefined;
  stop(): Promise<void>;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function logTail(file: string, lines = 8): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts dockerd with its own --data-root, --exec-root and socket, touching
 * nothing of the host's networking: no default bridge, no iptables rules, no change to IP forwarding;
 * published ports go through Docker's userland proxy and user-defined networks get a random /24, so that
 * two such engines on one machine do not collide. Synchronous, so that a test file can decide at load
 * time whether it runs. Returns the engine, or why it could not start.
 */
export function startDockerEngineSync(options: { dataRoot?: string } = {}): DockerEngine | string {
  if (!existsSync(DOCKERD) || !existsSync(DOCKER)) return `${DOCKERD} or ${DOCKER} missing (Debian's docker.io)`;
  const dir = mkdtempSync('/tmp/svc-docker-');
  const dataRoot = options.dataRoot ?? join(dir, 'data');
  const socket = join(dir, 'docker.sock');
  const config = join(dir, 'daemon.json');
  const log = join(dir, 'dockerd.log');
  writeFileSync(config, '{}\n'); // the host's /etc/docker/daemon.json, if any, is not ours
  const pool = `172.${16 + Math.floor(Math.random() * 16)}.${Math.floor(Math.random() * 256)}.0/24`;
  const out = openSync(log, 'a');
  const daemon = spawn(
    DOCKERD,
    [
      `--data-root=${dataRoot}`,
      `--exec-root=${join(dir, 'exec')}`,
      `--host=unix://${socket}`,
      `--pidfile=${join(dir, 'docker.pid')}`,
      `--config-file=${config}`,
      '--bridge=none',
      '--iptables=false',
      '--ip-forward=false',
      `--default-address-pool=base=${pool},size=26`,
    ],
    { stdio: ['ignore', out, out], detached: true },
  );
  closeSync(out);
  daemon.unref();
  const env = { DOCKER_HOST: `unix://${socket}` };

  const engine: DockerEngine = {
    dir,
    env,
    run: (command, args, options = {}) =>
      new Promise((resolve, reject) => {
        execFile(
          command,
          args,
          { env: { ...process.env, ...env, ...options.env }, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
          (error, stdout, stderr) => {
            if (error)
              reject(new Error(`${command} ${args.join(' ')} failed (${error.message.split('\n')[0]}):\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`));
            else resolve({ stdout, stderr });
          },
        );
      }),
    docker: (args, timeoutMs) => engine.run(DOCKER, args, { timeoutMs }),
    pid: daemon.pid,
    stop: () => stopEngine(daemon.pid, dir, dataRoot),
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const probe = spawnSync(DOCKER, ['version', '--format', '{{.Server.Version}}'], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 5_000 });
    if (probe.status === 0) return engine;
    const exited = daemon.pid === undefined || !isRunning(daemon.pid);
    if (exited || Date.now() > deadline) {
      const why = `dockerd ${exited ? 'exited' : `did not answer within ${START_TIMEOUT_MS / 1000}s`}: ${logTail(log, 4)}`;
      void stopEngine(daemon.pid, dir, dataRoot);
      return why;
    }
    sleepSync(250);
  }
}

function readIfExists(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function isRunning(pid: number): boolean {
  try {
    // A zombie still answers signal 0: read its state instead.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function stopEngine(pid: number | undefined, dir: string, dataRoot: string): Promise<void> {
  if (pid !== undefined && isRunning(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (isRunning(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    if (isRunning(pid)) {
      // Killed, dockerd cannot stop the containerd it supervises: that goes too.
      process.kill(pid, 'SIGKILL');
      const containerd = Number(readIfExists(join(dir, 'exec', 'containerd', 'containerd.pid')));
      if (containerd > 0 && isRunning(containerd)) process.kill(containerd, 'SIGKILL');
    }
  }
  // dockerd leaves its network namespace handles (and, when killed, overlay mounts) mounted below its directories.
  unmountBelow(dir);
  unmountBelow(dataRoot);
  rmSync(dir, { recursive: true, force: true });
}

/** Lazily unmounts whatever is mounted below `dir`, deepest first, so that it can be removed or reused. */
export function unmountBelow(dir: string): void {
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => !!point && point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) spawnSync('umount', ['-l', point], { timeout: 10_000 });
}

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CriClient } from '../cri-client';
import { cniTemplate, CNI_BIN_DIR } from './cni-config';
import { containerdConfig } from './containerd-config';
import { deleteLink, unmountBelow } from './host-cleanup';
import { findExecutable } from './host-executables';
import { PAUSE_IMAGE, pauseImageArchive } from './image-archive';
import type { RegistryAuth } from './registries-config';

const run = promisify(execFile);

/** The longest path a unix socket can have on Linux (sun_path less its terminating NUL). */
const MAX_SOCKET_PATH = 107;

export interface StartContainerdOptions {
  /** Its directory: configuration, root (images, snapshots), state, socket, CNI configuration, log. */
  dir: string;
  /** The Linux bridge its pods are attached to; by default one named from the directory. */
  bridge?: string;
  /** A network namespace (by `ip netns` name) to run in: its pods' bridge and CNI live there. */
  netns?: string;
  sandboxImage?: string;
  /** Imports the pause image made from busybox-static (the default); off when `sandboxImage` names another. */
  importPauseImage?: boolean;
  cniBinDir?: string;
  registryHostsDir?: string;
  registryAuths?: Readonly<Record<string, RegistryAuth>>;
  /** Runtime handlers beside `runc` (see ContainerdConfigOptions). */
  runtimeHandlers?: readonly string[];
  logLevel?: string;
  readyTimeoutMs?: number;
}

/** An image as containerd holds it: its name and the descriptor it points at. */
export interface StoredImage {
  name: string;
  mediaType: string;
  digest: string;
}

export interface Containerd {
  /** The CRI endpoint, `unix:///.../containerd.sock`. */
  endpoint: string;
  socket: string;
  dir: string;
  /** The Linux bridge its pods are attached to. */
  bridge: string;
  netns?: string;
  /** containerd's content store: `blobs/sha256/<hex>` below it. */
  contentDir: string;
  /** A CRI client on the socket (closed by stop). */
  cri: CriClient;
  /** Runs `ctr` in the `k8s.io` namespace, the one the CRI plugin reads. */
  ctr(this: void, args: readonly string[]): Promise<string>;
  /** Imports an image archive (OCI layout or `docker save`'s) from a file. */
  importImageFile(file: string): Promise<void>;
  /** Imports an image archive held in memory. */
  importImage(archive: Buffer): Promise<void>;
  /** The images it holds (by name; digest references left out). */
  images(this: void): Promise<StoredImage[]>;
  log(): Promise<string>;
  exited(): boolean;
  /**
   * Stops and removes every pod sandbox (so that no container outlives it), stops containerd,
   * deletes its bridge and unmounts what it left mounted; with `removeDir` its directory goes too.
   */
  stop(options?: { removeDir?: boolean }): Promise<void>;
}

/** The bridge name made from a directory: unique per directory, within Linux's 15 characters. */
export function bridgeNameFor(dir: string): string {
  return `svc${createHash('sha256').update(dir).digest('hex').slice(0, 8)}`;
}

function socketPathFor(dir: string): string {
  const socket = join(dir, 'containerd.sock');
  if (socket.length + '.ttrpc'.length <= MAX_SOCKET_PATH) return socket;
  // A deep directory: the socket goes under /run, named from it.
  return join('/run', `svc-containerd-${createHash('sha256').update(dir).digest('hex').slice(0, 12)}`, 'containerd.sock');
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function removeAllSandboxes(cri: CriClient): Promise<void> {
  const sandboxes = await cri.listPodSandbox().catch(() => []);
  for (const sandbox of sandboxes) {
    await cri.stopPodSandbox(sandbox.id).catch(() => undefined);
    await cri.removePodSandbox(sandbox.id).catch(() => undefined);
  }
}

async function stopPid(pid: number, graceMs: number): Promise<void> {
  if (!isRunning(pid)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isRunning(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isRunning(pid)) process.kill(pid, 'SIGKILL');
}

/**
 * A containerd that an earlier start of the same directory left running (its starter killed without
 * a chance to stop it): its sandboxes removed, stopped, its mounts undone, so that this start begins
 * clean instead of finding the socket taken.
 */
async function stopLeftover(dir: string, socket: string): Promise<void> {
  const pidFile = join(dir, 'containerd.pid');
  const pid = Number(await readFile(pidFile, 'utf8').catch(() => ''));
  const config = join(dir, 'config.toml');
  const ours = pid > 0 && isRunning(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(config);
  if (ours) {
    const cri = new CriClient(`unix://${socket}`, { timeoutMs: 10_000 });
    await removeAllSandboxes(cri);
    cri.close();
    await stopPid(pid, 10_000);
  } else if (existsSync(socket)) {
    // A socket whose server is not our recorded process: someone else's containerd may be serving this directory.
    const probe = new CriClient(`unix://${socket}`, { timeoutMs: 2_000 });
    const answering = await probe.version().then(
      () => true,
      () => false,
    );
    probe.close();
    if (answering) throw new Error(`${socket} is served by a containerd this directory did not start; stop it first`);
  }
  await rm(socket, { force: true });
  await rm(`${socket}.ttrpc`, { force: true });
  await rm(pidFile, { force: true });
  await unmountBelow(join(dir, 'state'));
  await rm(join(dir, 'state'), { recursive: true, force: true });
}

/**
 * Starts a containerd of its own (root, state, socket, configuration and CNI configuration under
 * `dir`, in a network namespace when given) with the CRI plugin configured for a node of this
 * machine, imports the pause image, and resolves once CRI answers. Needs root and Debian's
 * containerd, runc and containernetworking-plugins.
 */
export async function startContainerd(options: StartContainerdOptions): Promise<Containerd> {
  const { dir } = options;
  await mkdir(dir, { recursive: true });
  const socket = socketPathFor(dir);
  await mkdir(join(socket, '..'), { recursive: true });
  await stopLeftover(dir, socket);
  const bridge = options.bridge ?? bridgeNameFor(dir);
  const cniConfDir = join(dir, 'net.d');
  // The pod CIDR may differ from the last start: containerd writes the configuration anew from the template.
  await rm(cniConfDir, { recursive: true, force: true });
  await mkdir(cniConfDir, { recursive: true });
  const cniTemplateFile = join(dir, 'cni-template.json');
  await writeFile(cniTemplateFile, cniTemplate(bridge, join(dir, 'cni-ipam')));
  const configPath = join(dir, 'config.toml');
  const sandboxImage = options.sandboxImage ?? PAUSE_IMAGE;
  await writeFile(
    configPath,
    containerdConfig({
      dir,
      socket,
      sandboxImage,
      cniBinDir: options.cniBinDir ?? CNI_BIN_DIR,
      cniConfDir,
      cniTemplateFile,
      registryHostsDir: options.registryHostsDir,
      registryAuths: options.registryAuths,
      runtimeHandlers: options.runtimeHandlers,
    }),
  );
  const logPath = join(dir, 'containerd.log');
  const logFd = openSync(logPath, 'a');
  const containerdArgs = ['--config', configPath, '--log-level', options.logLevel ?? process.env.SVC_CONTAINERD_LOG_LEVEL ?? 'warn'];
  const binary = findExecutable('containerd') ?? 'containerd';
  // nsenter enters the network namespace alone and execs containerd: same process, same mounts as ours.
  // A process group of its own: a Ctrl-C meant for the control plane must not stop it before its pods are removed.
  const spawnOptions = { stdio: ['ignore', logFd, logFd] as ['ignore', number, number], detached: true };
  const child: ChildProcess = options.netns
    ? spawn(findExecutable('nsenter') ?? 'nsenter', [`--net=/run/netns/${options.netns}`, binary, ...containerdArgs], spawnOptions)
    : spawn(binary, containerdArgs, spawnOptions);
  closeSync(logFd);
  if (child.pid !== undefined) await writeFile(join(dir, 'containerd.pid'), String(child.pid));
  let hasExited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      hasExited = true;
      resolve();
    }),
  );
  const log = () => readFile(logPath, 'utf8').catch(() => '');
  const cri = new CriClient(`unix://${socket}`, { timeoutMs: 10_000 });
  const ctr = async (args: readonly string[]): Promise<string> => {
    const { stdout } = await run(findExecutable('ctr') ?? 'ctr', ['--address', socket, '-n', 'k8s.io', ...args], { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  };
  const importImageFile = async (file: string): Promise<void> => {
    await ctr(['images', 'import', file]).catch(async (error: Error) => {
      throw new Error(`importing ${file}: ${error.message.split('\n').slice(-2).join(' ').trim()}`);
    });
  };
  const importImage = async (archive: Buffer): Promise<void> => {
    const file = join(dir, `import-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.tar`);
    await writeFile(file, archive);
    try {
      await importImageFile(file);
    } finally {
      await rm(file, { force: true });
    }
  };
  const images = async (): Promise<StoredImage[]> => {
    const lines = (await ctr(['images', 'list'])).split('\n').slice(1);
    return lines
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields.length >= 3 && !fields[0].startsWith('sha256:') && !fields[0].includes('@'))
      .map(([name, mediaType, digest]) => ({ name, mediaType, digest }));
  };
  const stop = async (stopOptions: { removeDir?: boolean } = {}): Promise<void> => {
    try {
      if (!hasExited) {
        // Shims outlive containerd: stop and remove every sandbox first so that no container is left running.
        await removeAllSandboxes(cri);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exit;
        clearTimeout(timer);
      }
    } finally {
      cri.close();
      await deleteLink(bridge, options.netns);
      await unmountBelow(dir);
      await rm(join(dir, 'containerd.pid'), { force: true });
      await rm(join(dir, 'state'), { recursive: true, force: true }).catch(() => undefined);
      if (socket !== join(dir, 'containerd.sock')) await rm(join(socket, '..'), { recursive: true, force: true });
      if (stopOptions.removeDir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  };
  try {
    await waitFor(
      async () => {
        if (hasExited) throw new Error('exited');
        await cri.version();
        return true;
      },
      options.readyTimeoutMs ?? 30_000,
      () => `containerd did not answer on ${socket}`,
    ).catch(async (error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}${hasExited ? ' (it exited)' : ''}; its log:\n${(await log()).slice(-4000)}`);
    });
    if (options.importPauseImage ?? options.sandboxImage === undefined) {
      if (!(await cri.imageStatus(sandboxImage).catch(() => undefined))) await importImage(await pauseImageArchive());
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint: `unix://${socket}`,
    socket,
    dir,
    bridge,
    netns: options.netns,
    contentDir: join(dir, 'root', 'io.containerd.content.v1.content'),
    cri,
    ctr,
    importImageFile,
    importImage,
    images,
    log,
    exited: () => hasExited,
    stop,
  };
}

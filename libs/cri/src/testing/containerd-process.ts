import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CriClient } from '../cri-client';
import { busyboxImageArchive, BUSYBOX_STATIC } from './oci-image-archive';

const run = promisify(execFile);

/** The Debian packages a local runtime needs, as one apt-get command. */
export const RUNTIME_PACKAGES = ['containerd', 'runc', 'containernetworking-plugins', 'busybox-static'] as const;
export const RUNTIME_INSTALL_COMMAND = `apt-get install -y ${RUNTIME_PACKAGES.join(' ')}`;

/** Where Debian's containernetworking-plugins puts the CNI plugins. */
export const CNI_BIN_DIR = '/usr/lib/cni';

/** The image the tests run: busybox from Debian's busybox-static, under a pinned tag (pull policy IfNotPresent). */
export const BUSYBOX_IMAGE = 'busybox:1.36';
/** The sandbox ("pause") image, built the same way and named in containerd's `sandbox_image`. */
export const PAUSE_IMAGE = 'svc.local/pause:1.0';

/** The pause container: sleeps until told to stop, and stops at once on SIGTERM. */
const PAUSE_ENTRYPOINT = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"];

function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin').split(':').concat(['/usr/sbin', '/sbin'])) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The environment variable that carries why a probe of the local runtime failed. */
export const RUNTIME_PROBE_VARIABLE = 'SVC_LOCAL_RUNTIME_UNAVAILABLE';

/**
 * Why a local containerd cannot be started here, or undefined when it can: the tests that need one
 * skip with this reason.
 */
export function localRuntimeUnavailable(): string | undefined {
  // Set by the test run's global setup when a private containerd was tried and could not run a container.
  if (process.env[RUNTIME_PROBE_VARIABLE]) return process.env[RUNTIME_PROBE_VARIABLE];
  if (process.platform !== 'linux') return `containers need Linux (this is ${process.platform})`;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'containerd and runc need root; run the tests as root';
  const missing = ['containerd', 'ctr', 'runc'].filter((b) => findExecutable(b) === undefined);
  if (!existsSync(join(CNI_BIN_DIR, 'bridge'))) missing.push(`${CNI_BIN_DIR}/bridge`);
  if (!existsSync(BUSYBOX_STATIC)) missing.push(BUSYBOX_STATIC);
  if (missing.length > 0) return `missing ${missing.join(', ')}: install them with "${RUNTIME_INSTALL_COMMAND}"`;
  return undefined;
}

export interface ContainerdProcess {
  /** The CRI endpoint, `unix:///.../containerd.sock`. */
  endpoint: string;
  /** The socket path. */
  socket: string;
  /** Scratch directory holding everything of this instance. */
  dir: string;
  /** The Linux bridge its pods are attached to (unique per instance). */
  bridge: string;
  /** A CRI client on the socket (closed by stop). */
  cri: CriClient;
  /** Imports an OCI image archive into the `k8s.io` namespace that the CRI plugin reads. */
  importImage(archive: Buffer): Promise<void>;
  /** Runs `ctr` against this instance. */
  ctr(args: readonly string[]): Promise<string>;
  log(): Promise<string>;
  /** Removes every pod sandbox, stops containerd, deletes its bridge and its directory. */
  stop(): Promise<void>;
}

export interface StartContainerdOptions {
  /** Directory to use; a fresh temporary one by default. */
  dir?: string;
  /** `sandbox_image` of the CRI plugin. */
  sandboxImage?: string;
  /** Import the busybox and pause images (the default). */
  importImages?: boolean;
  readyTimeoutMs?: number;
}

/** Whether this process lacks CAP_SYS_RESOURCE, without which runc cannot lower a container's OOM score. */
function restrictOomScoreAdj(): boolean {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    const CAP_SYS_RESOURCE = 24n;
    return effective === undefined || (BigInt(`0x${effective}`) & (1n << CAP_SYS_RESOURCE)) === 0n;
  } catch {
    return true;
  }
}

function toml(value: string): string {
  return JSON.stringify(value);
}

/** containerd's configuration: everything under `dir`, CRI with a CNI template filled from the pod CIDR. */
export function containerdConfig(dir: string, sandboxImage: string, cniConfDir: string, cniTemplate: string): string {
  return `version = 2
root = ${toml(join(dir, 'root'))}
state = ${toml(join(dir, 'state'))}
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = ${toml(join(dir, 'containerd.sock'))}

[ttrpc]
  address = ${toml(join(dir, 'containerd.sock.ttrpc'))}

[plugins."io.containerd.internal.v1.opt"]
  path = ${toml(join(dir, 'opt'))}

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = ${toml(sandboxImage)}
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_tls_streaming = false
  netns_mounts_under_state_dir = true
  # Without CAP_SYS_RESOURCE (containers, some VMs) a negative OOM score cannot be set: keep scores at or above our own.
  restrict_oom_score_adj = ${restrictOomScoreAdj()}
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = ${toml(CNI_BIN_DIR)}
    conf_dir = ${toml(cniConfDir)}
    conf_template = ${toml(cniTemplate)}
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = ${toml(join(dir, 'runc'))}
`;
}

/**
 * The CNI network of the pods: a bridge with host-local addresses from the node's pod CIDR (which
 * containerd fills in when the node agent calls UpdateRuntimeConfig) and port mappings; containerd
 * adds the loopback itself. The host is the bridge's gateway, so it reaches every pod IP; nothing
 * is masqueraded, so pods reach only this machine.
 */
export function cniTemplate(bridge: string, ipamDir: string): string {
  return JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: 'svc-pods',
      plugins: [
        {
          type: 'bridge',
          bridge,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: { type: 'host-local', dataDir: ipamDir, ranges: [[{ subnet: '{{.PodCIDR}}' }]] },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts a private containerd (its own root, state, socket, config and CNI configuration under a
 * temporary directory) with the CRI plugin, imports the busybox and pause images built from
 * Debian's busybox-static, and resolves once CRI answers. Needs root and the packages of
 * {@link RUNTIME_INSTALL_COMMAND}; see {@link localRuntimeUnavailable}.
 */
export async function startContainerd(options: StartContainerdOptions = {}): Promise<ContainerdProcess> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'svc-containerd-')));
  await mkdir(dir, { recursive: true });
  const socket = join(dir, 'containerd.sock');
  // A containerd still serving this directory would answer in place of the new one.
  if (existsSync(socket)) throw new Error(`${socket} exists: another containerd may still use ${dir}`);
  const cniConfDir = join(dir, 'net.d');
  await mkdir(cniConfDir, { recursive: true });
  const bridge = `svc${createHash('sha256').update(dir).digest('hex').slice(0, 8)}`;
  const templatePath = join(dir, 'cni-template.json');
  await writeFile(templatePath, cniTemplate(bridge, join(dir, 'cni-ipam')));
  const configPath = join(dir, 'config.toml');
  await writeFile(configPath, containerdConfig(dir, options.sandboxImage ?? PAUSE_IMAGE, cniConfDir, templatePath));
  const logPath = join(dir, 'containerd.log');
  const logFd = openSync(logPath, 'a');
  const child: ChildProcess = spawn(
    findExecutable('containerd') ?? 'containerd',
    ['--config', configPath, '--log-level', process.env.SVC_CONTAINERD_LOG_LEVEL ?? 'warn'],
    {
      stdio: ['ignore', logFd, logFd],
      detached: false,
    },
  );
  closeSync(logFd);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const log = () => readFile(logPath, 'utf8').catch(() => '');
  const cri = new CriClient(`unix://${socket}`, { timeoutMs: 10_000 });
  const ctr = async (args: readonly string[]): Promise<string> => {
    const { stdout } = await run('ctr', ['--address', socket, '-n', 'k8s.io', ...args], { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  };
  const importImage = async (archive: Buffer): Promise<void> => {
    const file = join(dir, `import-${Date.now()}-${Math.random().toString(36).slice(2)}.tar`);
    await writeFile(file, archive);
    try {
      await ctr(['images', 'import', file]);
    } finally {
      await rm(file, { force: true });
    }
  };
  const stop = async (): Promise<void> => {
    try {
      if (!exited) {
        // Shims outlive containerd: stop and remove every sandbox first so that no container is left running.
        const sandboxes = await cri.listPodSandbox().catch(() => []);
        for (const sandbox of sandboxes) {
          await cri.stopPodSandbox(sandbox.id).catch(() => undefined);
          await cri.removePodSandbox(sandbox.id).catch(() => undefined);
        }
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exit;
        clearTimeout(timer);
      }
    } finally {
      cri.close();
      await run('ip', ['link', 'delete', bridge]).catch(() => undefined);
      await unmountBelow(dir);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  };
  try {
    await waitFor(
      async () => {
        if (exited) throw new Error('exited');
        await cri.version();
        return true;
      },
      options.readyTimeoutMs ?? 30_000,
      () => `containerd did not answer on ${socket}`,
    ).catch(async (error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}${exited ? ' (it exited)' : ''}; its log:\n${await log()}`);
    });
    if (options.importImages ?? true) {
      await importImage(await busyboxImageArchive({ references: [BUSYBOX_IMAGE] }));
      await importImage(await busyboxImageArchive({ references: [PAUSE_IMAGE], entrypoint: PAUSE_ENTRYPOINT, cmd: [] }));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint: `unix://${socket}`, socket, dir, bridge, cri, importImage, ctr, log, stop };
}

/** Unmounts whatever containerd left mounted below `dir` (overlay rootfs, network namespaces, shm), deepest first. */
async function unmountBelow(dir: string): Promise<void> {
  const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  const points = mounts
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((point): point is string => point !== undefined && (point === dir || point.startsWith(`${dir}/`)))
    .map((point) => point.replace(/\\040/g, ' '))
    .sort((a, b) => b.length - a.length);
  for (const point of points) await run('umount', ['-l', point]).catch(() => undefined);
}

/**
 * Starts a private containerd and runs one container in a sandbox through CRI, as the tests will:
 * undefined when that works, else one line saying what failed (containerd not starting, no
 * overlayfs, runc unable to make a container, CNI failing), so that the tests can skip saying why.
 */
export async function probeLocalRuntime(): Promise<string | undefined> {
  const missing = localRuntimeUnavailable();
  if (missing) return missing;
  let containerd: ContainerdProcess | undefined;
  let step = 'starting containerd';
  try {
    containerd = await startContainerd();
    const cri = containerd.cri;
    step = 'setting the pod CIDR';
    await cri.updateRuntimeConfig(`10.253.${Math.floor(Math.random() * 250)}.0/24`);
    step = 'running a pod sandbox';
    const config = { metadata: { name: 'probe', uid: 'svc-runtime-probe', namespace: 'probe', attempt: 0 }, logDirectory: join(containerd.dir, 'probe-logs') };
    await mkdir(config.logDirectory, { recursive: true });
    const sandbox = await cri.runPodSandbox(config);
    step = 'running a container';
    const id = await cri.createContainer(
      sandbox,
      { metadata: { name: 'probe', attempt: 0 }, image: { image: BUSYBOX_IMAGE }, command: ['true'], logPath: 'probe.log' },
      config,
    );
    await cri.startContainer(id);
    return undefined;
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').slice(0, 500);
    return `a private containerd failed at ${step}: ${message}`;
  } finally {
    await containerd?.stop().catch(() => undefined);
  }
}

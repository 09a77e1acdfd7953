import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  busyboxImageArchive,
  findExecutable,
  missingDebianPackages,
  RUNTIME_INSTALL_COMMAND,
  RUNTIME_PACKAGES,
  runtimeHostProblem,
  startContainerd as startNodeContainerd,
  type Containerd,
  type RegistryAuth,
} from '../node-runtime';

export { BUSYBOX_STATIC, CNI_BIN_DIR, PAUSE_IMAGE, RUNTIME_INSTALL_COMMAND, RUNTIME_PACKAGES } from '../node-runtime';

/** The image the tests run: busybox from Debian's busybox-static, under a pinned tag (pull policy IfNotPresent). */
export const BUSYBOX_IMAGE = 'busybox:1.36';

/** The environment variable that carries why a probe of the local runtime failed. */
export const RUNTIME_PROBE_VARIABLE = 'SVC_LOCAL_RUNTIME_UNAVAILABLE';

/**
 * Why a local containerd cannot be started here, or undefined when it can: the tests that need one
 * skip with this reason.
 */
export function localRuntimeUnavailable(): string | undefined {
  // Set by the test run's global setup when a private containerd was tried and could not run a container.
  if (process.env[RUNTIME_PROBE_VARIABLE]) return process.env[RUNTIME_PROBE_VARIABLE];
  const problem = runtimeHostProblem();
  if (problem) return problem;
  const missing = missingDebianPackages(RUNTIME_PACKAGES).map((p) => p.provides);
  if (findExecutable('ctr') === undefined) missing.push('ctr');
  if (missing.length > 0) return `missing ${missing.join(', ')}: install them with "${RUNTIME_INSTALL_COMMAND}"`;
  return undefined;
}

/** A test's containerd: the node runtime's own, in a scratch directory that stop() removes. */
export interface ContainerdProcess extends Containerd {
  /** Removes every pod sandbox, stops containerd, deletes its bridge and its directory. */
  stop(): Promise<void>;
}

export interface TestContainerdOptions {
  /** Directory to use; a fresh temporary one by default. */
  dir?: string;
  /** `sandbox_image` of the CRI plugin. */
  sandboxImage?: string;
  /** Import the busybox and pause images (the default). */
  importImages?: boolean;
  /** A network namespace (`ip netns` name) to run in. */
  netns?: string;
  registryHostsDir?: string;
  registryAuths?: Readonly<Record<string, RegistryAuth>>;
  /** Runtime handlers beside `runc`, each a runc of its own (for RuntimeClasses). */
  runtimeHandlers?: readonly string[];
  readyTimeoutMs?: number;
}

/**
 * Starts a private containerd, exactly as `npm start` starts a node's (its own root, state, socket,
 * config and CNI configuration, under a temporary directory), imports the busybox image built from
 * Debian's busybox-static, and resolves once CRI answers. Needs root and the packages of
 * {@link RUNTIME_INSTALL_COMMAND}; see {@link localRuntimeUnavailable}.
 */
export async function startContainerd(options: TestContainerdOptions = {}): Promise<ContainerdProcess> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'svc-containerd-')));
  await mkdir(dir, { recursive: true });
  const importImages = options.importImages ?? true;
  const containerd = await startNodeContainerd({
    dir,
    sandboxImage: options.sandboxImage,
    importPauseImage: importImages && options.sandboxImage === undefined,
    netns: options.netns,
    registryHostsDir: options.registryHostsDir,
    registryAuths: options.registryAuths,
    runtimeHandlers: options.runtimeHandlers,
    readyTimeoutMs: options.readyTimeoutMs,
  });
  const stop = () => containerd.stop({ removeDir: true });
  try {
    if (importImages) await containerd.importImage(await busyboxImageArchive({ references: [BUSYBOX_IMAGE] }));
  } catch (error) {
    await stop();
    throw error;
  }
  return { ...containerd, stop };
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

import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startContainerd, type Containerd } from './containerd-instance';
import { ensureDebianPackages } from './debian-packages';
import { ensureBridgeNetfilter } from './host-facts';
import { busyboxImageArchive, imageRegistry, PAUSE_IMAGE } from './image-archive';
import { watchImageDirectory, type ImageDirectory } from './image-directory';
import { startImageMirror, type ImageMirror } from './image-mirror';
import { nodeBaseImageArchive, nodeBaseImageName } from './node-base-image';
import { parseRegistriesConfig, registryAuths, writeRegistryHosts, type RegistriesConfig } from './registries-config';
import { RUNTIME_PACKAGES, runtimeHostProblem } from './runtime-packages';

/** The image the README's examples run: busybox from Debian's busybox-static, as `busybox` (`:latest`) and `busybox:1.36`. */
export const BUSYBOX_REFERENCES = ['busybox', 'busybox:1.36'] as const;

/**
 * Whether this machine can run a node's runtime, installing Debian's packages for it when missing
 * and running as root: undefined when it can, else one line saying why and what to install.
 */
export function prepareMachineRuntime(log: (line: string) => void): string | undefined {
  const problem = runtimeHostProblem() ?? ensureDebianPackages(RUNTIME_PACKAGES, { onInstall: log, purpose: 'for the container runtime' });
  if (problem) return problem;
  const netfilter = ensureBridgeNetfilter();
  if (netfilter) log(netfilter);
  return undefined;
}

export interface MachineRuntimeOptions {
  /** The control plane's state directory (`.data`): `containerd/`, `images/`, `registries.yaml`, `registries.d/` below it. */
  dataDir: string;
  /** The first node's pod bridge. */
  bridge: string;
  /** Where the image mirror listens: the host's address on the node network, else loopback. */
  mirrorAddress: string;
  log: (line: string) => void;
}

/** The first node's runtime, the images of the machine and the mirror every node pulls them through. */
export interface MachineRuntime {
  containerd: Containerd;
  mirror: ImageMirror;
  /** containerd's `config_path` for every node of the machine. */
  registryHostsDir: string;
  registries: RegistriesConfig;
  /** A containerd for another node, in its network namespace, configured as the first. */
  startNodeContainerd(options: { dir: string; netns: string; bridge: string }): Promise<Containerd>;
  stop(): Promise<void>;
}

async function loadRegistries(file: string): Promise<RegistriesConfig> {
  if (!existsSync(file)) return { mirrors: {}, configs: {} };
  try {
    return parseRegistriesConfig(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/** Writes the images the first start makes (busybox, the Node.js base) into the image directory, once. */
async function makeLocalImages(imagesDir: string, log: (line: string) => void): Promise<void> {
  await mkdir(imagesDir, { recursive: true });
  const busybox = join(imagesDir, 'busybox.tar');
  if (!existsSync(busybox)) {
    await writeFile(busybox, await busyboxImageArchive({ references: BUSYBOX_REFERENCES }));
    log(`made ${BUSYBOX_REFERENCES.join(' and ')} from busybox-static (${busybox})`);
  }
  const node = join(imagesDir, `node-${process.version.slice(1)}.tar`);
  if (!existsSync(node)) {
    await writeFile(node, await nodeBaseImageArchive());
    log(`made ${nodeBaseImageName()} from this machine's node ${process.version} (${node})`);
  }
}

/**
 * Starts the first node's containerd under `<dataDir>/containerd` with registries from
 * `<dataDir>/registries.yaml` (k3s's format), the image mirror, and the image directory
 * `<dataDir>/images`: busybox and the Node.js base made there on the first start, and every archive
 * in it imported now and whenever one is added.
 */
export async function startMachineRuntime(options: MachineRuntimeOptions): Promise<MachineRuntime> {
  const { dataDir, log } = options;
  const registries = await loadRegistries(join(dataDir, 'registries.yaml'));
  const registryHostsDir = join(dataDir, 'registries.d');
  const auths = registryAuths(registries);
  const imagesDir = join(dataDir, 'images');
  const containerd = await startContainerd({ dir: join(dataDir, 'containerd'), bridge: options.bridge, registryHostsDir, registryAuths: auths });
  let mirror: ImageMirror | undefined;
  let directory: ImageDirectory | undefined;
  try {
    mirror = await startImageMirror({ contentDir: containerd.contentDir, images: () => containerd.images(), host: options.mirrorAddress });
    const mirrorUrl = mirror.url;
    const knownRegistries = new Set(['docker.io', imageRegistry(PAUSE_IMAGE)]);
    const writeHosts = () => writeRegistryHosts(registryHostsDir, registries, knownRegistries, mirrorUrl);
    await writeHosts();
    await makeLocalImages(imagesDir, log);
    directory = watchImageDirectory({
      dir: imagesDir,
      log,
      importFile: async (file) => {
        await containerd.importImageFile(file);
        // Every registry named by an image held here gets the mirror, so other nodes pull it from this one.
        const before = knownRegistries.size;
        for (const image of await containerd.images()) knownRegistries.add(image.name.slice(0, image.name.indexOf('/')));
        if (knownRegistries.size !== before) await writeHosts();
      },
    });
    await directory.ready;
  } catch (error) {
    directory?.close();
    await mirror?.close();
    await containerd.stop();
    throw error;
  }
  const started = { mirror, directory };
  return {
    containerd,
    mirror,
    registryHostsDir,
    registries,
    startNodeContainerd: ({ dir, netns, bridge }) => startContainerd({ dir, netns, bridge, registryHostsDir, registryAuths: auths }),
    async stop() {
      started.directory.close();
      await started.mirror.close();
      await containerd.stop();
    },
  };
}

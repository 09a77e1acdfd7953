import { CNI_BIN_DIR } from './cni-config';
import type { DebianPackage } from './debian-packages';
import { BUSYBOX_STATIC } from './image-archive';

/** What a node of this machine runs on, from Debian: containerd (with ctr), runc, the CNI plugins, and busybox for the images made locally. */
export const RUNTIME_PACKAGES: readonly DebianPackage[] = [
  { name: 'containerd', provides: 'containerd' },
  { name: 'runc', provides: 'runc' },
  { name: 'containernetworking-plugins', provides: `${CNI_BIN_DIR}/bridge` },
  { name: 'busybox-static', provides: BUSYBOX_STATIC },
];

export const RUNTIME_INSTALL_COMMAND = `apt-get install -y ${RUNTIME_PACKAGES.map((p) => p.name).join(' ')}`;

/** Why this process cannot run containers whatever is installed (not Linux, not root), or undefined. */
export function runtimeHostProblem(): string | undefined {
  if (process.platform !== 'linux') return `containers need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return `containerd and runc need root; as root, "${RUNTIME_INSTALL_COMMAND}" installs them`;
  return undefined;
}

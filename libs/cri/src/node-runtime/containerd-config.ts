import { join } from 'node:path';
import { lacksCapSysResource } from './host-facts';
import type { RegistryAuth } from './registries-config';

export interface ContainerdConfigOptions {
  /** Everything of this containerd lives below it: root, state, runc's state, opt. */
  dir: string;
  /** The gRPC socket (CRI and containerd's own API). */
  socket: string;
  /** `sandbox_image` of the CRI plugin: the pause image, made locally. */
  sandboxImage: string;
  cniBinDir: string;
  cniConfDir: string;
  /** The file holding {@link cniTemplate}'s text. */
  cniTemplateFile: string;
  /** containerd's `config_path`: one directory per registry host with its hosts.toml (mirrors, TLS). */
  registryHostsDir?: string;
  /** Credentials per registry host (registries.yaml's `configs.<host>.auth`). */
  registryAuths?: Readonly<Record<string, RegistryAuth>>;
  /** Defaults to whether this process lacks CAP_SYS_RESOURCE. */
  restrictOomScoreAdj?: boolean;
  /** Runtime handlers beside `runc`, each a runc of its own state directory (RuntimeClasses name them). */
  runtimeHandlers?: readonly string[];
}

function toml(value: string): string {
  return JSON.stringify(value);
}

function authSection(host: string, auth: RegistryAuth): string {
  const lines = [`  [plugins."io.containerd.grpc.v1.cri".registry.configs.${toml(host)}.auth]`];
  if (auth.username !== undefined) lines.push(`    username = ${toml(auth.username)}`);
  if (auth.password !== undefined) lines.push(`    password = ${toml(auth.password)}`);
  if (auth.auth !== undefined) lines.push(`    auth = ${toml(auth.auth)}`);
  if (auth.identitytoken !== undefined) lines.push(`    identitytoken = ${toml(auth.identitytoken)}`);
  return lines.join('\n');
}

/** A runtime handler named `name` that runs runc with its state under `root`. */
function runcHandlerSection(name: string, root: string): string {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) throw new Error(`runtime handler ${JSON.stringify(name)} is not a DNS label`);
  const at = `plugins."io.containerd.grpc.v1.cri".containerd.runtimes.${toml(name)}`;
  return [`    [${at}]`, `      runtime_type = "io.containerd.runc.v2"`, `      [${at}.options]`, `        Root = ${toml(root)}`].join('\n');
}

/**
 * containerd 1.6's configuration for one node: everything under `dir`, only the overlayfs
 * snapshotter, runc as the runtime, CRI with the pause image given, the CNI template filled from the
 * pod CIDR, registries from a hosts directory, and `restrict_oom_score_adj` where the process lacks
 * CAP_SYS_RESOURCE (every sandbox fails otherwise, runc unable to set the pause container's score).
 */
export function containerdConfig(options: ContainerdConfigOptions): string {
  const { dir } = options;
  const restrict = options.restrictOomScoreAdj ?? lacksCapSysResource();
  const registry = options.registryHostsDir ? [`  [plugins."io.containerd.grpc.v1.cri".registry]`, `    config_path = ${toml(options.registryHostsDir)}`] : [];
  const auths = Object.entries(options.registryAuths ?? {}).map(([host, auth]) => authSection(host, auth));
  const handlers = (options.runtimeHandlers ?? []).filter((h) => h !== 'runc').map((h) => runcHandlerSection(h, join(dir, `runc-${h}`)));
  return `version = 2
root = ${toml(join(dir, 'root'))}
state = ${toml(join(dir, 'state'))}
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = ${toml(options.socket)}

[ttrpc]
  address = ${toml(`${options.socket}.ttrpc`)}

[plugins."io.containerd.internal.v1.opt"]
  path = ${toml(join(dir, 'opt'))}

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = ${toml(options.sandboxImage)}
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_tls_streaming = false
  netns_mounts_under_state_dir = true
  # Without CAP_SYS_RESOURCE (containers, some VMs) a negative OOM score cannot be set: keep scores at or above our own.
  restrict_oom_score_adj = ${restrict}
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = ${toml(options.cniBinDir)}
    conf_dir = ${toml(options.cniConfDir)}
    conf_template = ${toml(options.cniTemplateFile)}
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = ${toml(join(dir, 'runc'))}
${[...handlers, ...registry, ...auths].join('\n')}
`;
}

import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container, Pod, VolumeMount } from '@svc/api';
import type { ContainerConfig, LinuxContainerSecurityContext, Mount } from '@svc/cri';
import { linuxResources, type ResourceOptions } from './container-resources';
import { expandReferences } from './environment';
import {
  ANNOTATION_CONTAINER_HASH,
  ANNOTATION_RESTART_COUNT,
  ANNOTATION_TERMINATION_GRACE,
  ANNOTATION_TERMINATION_MESSAGE_PATH,
  containerHash,
  containerLogPath,
  LABEL_CONTAINER_NAME,
  LABEL_CONTAINER_TYPE,
  podLabels,
} from './runtime-labels';
import { ContainerConfigError } from '../objects/container-config-error';
import { checkSubPath, expandSubPathExpr, prepareSubPath, safeMakeDir } from '../volumes/subpath';
import type { MountedVolume } from '../volumes/volume-manager';

export type ContainerType = 'init' | 'regular' | 'ephemeral';

export interface ContainerRuntimeInputs {
  imageRef: string;
  env: ReadonlyArray<[string, Buffer]>;
  /** Each volume set up for the pod (its host path, whether it is read only), by volume name. */
  volumes: ReadonlyMap<string, MountedVolume>;
  /** The pod's own directory (hosts file, termination logs). */
  podDir: string;
  /** The pod's managed /etc/hosts. */
  hostsFile?: string;
  attempt: number;
  type: ContainerType;
  /** The runtime id of the container whose process namespace an ephemeral container joins (CRI's TARGET mode). */
  targetId?: string;
  resources: ResourceOptions;
  /** The agent's log: why a subPath could not be prepared (the container's error says less, as the kubelet's). */
  log?: (message: string) => void;
}

function securityContext(pod: Pod, container: Container, targetId: string | undefined): LinuxContainerSecurityContext {
  const podContext = pod.spec?.securityContext ?? {};
  const context = container.securityContext ?? {};
  const runAsUser = context.runAsUser ?? podContext.runAsUser;
  const runAsGroup = context.runAsGroup ?? podContext.runAsGroup;
  const spec = pod.spec ?? { containers: [] };
  const pid = spec.hostPID ? 'NODE' : spec.shareProcessNamespace ? 'POD' : 'CONTAINER';
  return {
    privileged: context.privileged === true,
    readonlyRootfs: context.readOnlyRootFilesystem === true,
    noNewPrivs: context.allowPrivilegeEscalation === false,
    ...(runAsUser !== undefined ? { runAsUser: { value: runAsUser } } : {}),
    ...(runAsGroup !== undefined ? { runAsGroup: { value: runAsGroup } } : {}),
    supplementalGroups: [...(podContext.supplementalGroups ?? []), ...(podContext.fsGroup !== undefined ? [podContext.fsGroup] : [])],
    capabilities: { addCapabilities: [...(context.capabilities?.add ?? [])], dropCapabilities: [...(context.capabilities?.drop ?? [])] },
    namespaceOptions: {
      network: spec.hostNetwork ? 'NODE' : 'POD',
      // A debug container targeting another joins that container's processes, where each has its own.
      ...(pid === 'CONTAINER' && targetId ? { pid: 'TARGET' as const, targetId } : { pid }),
      ipc: spec.hostIPC ? 'NODE' : 'POD',
    },
  };
}

/**
 * The host path to mount for a volumeMount with a subPath or subPathExpr, as the kubelet's makeMounts:
 * the expression is expanded from the container's environment, a missing subPath is made inside the
 * volume (with the volume's own mode), and the subPath is bind-mounted into the pod's directory after
 * it was checked to stay in the volume. Why it failed goes to the agent's log, not to the pod.
 */
async function subPathHostPath(
  container: Container,
  mount: VolumeMount,
  index: number,
  volume: MountedVolume,
  env: ReadonlyMap<string, string>,
  inputs: ContainerRuntimeInputs,
): Promise<string> {
  const subPath = mount.subPathExpr ? expandSubPathExpr(mount.subPathExpr, env) : (mount.subPath ?? '');
  if (!subPath) return volume.path;
  checkSubPath(subPath);
  const where = `volumeMount ${JSON.stringify(mount.name)} of container ${JSON.stringify(container.name)}`;
  const full = join(volume.path, subPath);
  if (!(await stat(full).catch(() => undefined))) {
    try {
      const mode = (await stat(volume.path)).mode & 0o7777;
      await safeMakeDir(volume.path, subPath, mode);
    } catch (error) {
      inputs.log?.(`failed to create subPath directory for ${where}: ${(error as Error).message}`);
      throw new ContainerConfigError(`failed to create subPath directory for ${where}`);
    }
  }
  try {
    return await prepareSubPath({
      volumePath: volume.path,
      subPath,
      podDir: inputs.podDir,
      volumeName: mount.name,
      containerName: container.name,
      mountIndex: index,
    });
  } catch (error) {
    inputs.log?.(`failed to prepare subPath for ${where}: ${(error as Error).message}`);
    throw new ContainerConfigError(`failed to prepare subPath for ${where}`);
  }
}

async function mounts(container: Container, inputs: ContainerRuntimeInputs, env: ReadonlyMap<string, string>): Promise<Mount[]> {
  const result: Mount[] = [];
  for (const [index, mount] of (container.volumeMounts ?? []).entries()) {
    const volume = inputs.volumes.get(mount.name);
    if (volume === undefined) throw new ContainerConfigError(`cannot find volume "${mount.name}" to mount into container "${container.name}"`);
    const hostPath = await subPathHostPath(container, mount, index, volume, env, inputs);
    result.push({
      containerPath: mount.mountPath,
      hostPath,
      // A volume read only at its source (a claim's readOnly) is read only in every container.
      readonly: mount.readOnly === true || volume.readOnly,
      propagation:
        mount.mountPropagation === 'Bidirectional'
          ? 'PROPAGATION_BIDIRECTIONAL'
          : mount.mountPropagation === 'HostToContainer'
            ? 'PROPAGATION_HOST_TO_CONTAINER'
            : 'PROPAGATION_PRIVATE',
    });
  }
  const mountedAt = new Set(result.map((m) => m.containerPath));
  if (inputs.hostsFile && !mountedAt.has('/etc/hosts')) result.push({ containerPath: '/etc/hosts', hostPath: inputs.hostsFile });
  const messagePath = container.terminationMessagePath ?? '/dev/termination-log';
  if (messagePath && !mountedAt.has(messagePath)) {
    const file = terminationLogPath(inputs.podDir, container.name, inputs.attempt);
    await mkdir(join(inputs.podDir, 'containers', container.name), { recursive: true });
    await writeFile(file, '', { mode: 0o666 });
    // The umask took write from group and others: a container running as another user must write it (as the kubelet chmods).
    await chmod(file, 0o666);
    result.push({ containerPath: messagePath, hostPath: file });
  }
  return result;
}

/** Where a container's termination message file lives on the host. */
export function terminationLogPath(podDir: string, containerName: string, attempt: number): string {
  return join(podDir, 'containers', containerName, `termination-log-${attempt}`);
}

/** The CRI container of a pod's container: command, environment, mounts, resources and identity. */
export async function containerConfig(pod: Pod, container: Container, inputs: ContainerRuntimeInputs): Promise<ContainerConfig> {
  const env = new Map(inputs.env.map(([k, v]) => [k, v.toString('utf8')]));
  const expand = (values: readonly string[] | undefined) => values?.map((v) => expandReferences(v, (name) => env.get(name)));
  return {
    metadata: { name: container.name, attempt: inputs.attempt },
    image: { image: inputs.imageRef, userSpecifiedImage: container.image },
    command: expand(container.command) ?? [],
    args: expand(container.args) ?? [],
    workingDir: container.workingDir ?? '',
    envs: inputs.env.map(([key, value]) => ({ key, value })),
    mounts: await mounts(container, inputs, env),
    labels: { ...podLabels(pod), [LABEL_CONTAINER_NAME]: container.name, [LABEL_CONTAINER_TYPE]: inputs.type },
    annotations: {
      [ANNOTATION_CONTAINER_HASH]: containerHash(container),
      [ANNOTATION_RESTART_COUNT]: String(inputs.attempt),
      [ANNOTATION_TERMINATION_GRACE]: String(pod.spec?.terminationGracePeriodSeconds ?? 30),
      [ANNOTATION_TERMINATION_MESSAGE_PATH]: container.terminationMessagePath ?? '/dev/termination-log',
    },
    logPath: containerLogPath(container.name, inputs.attempt),
    stdin: container.stdin === true,
    stdinOnce: container.stdinOnce === true,
    tty: container.tty === true,
    linux: { resources: linuxResources(pod, container, inputs.resources), securityContext: securityContext(pod, container, inputs.targetId) },
  };
}

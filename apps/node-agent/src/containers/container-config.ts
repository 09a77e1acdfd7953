import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { Container, Pod } from '@svc/api';
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

export type ContainerType = 'init' | 'regular';

export interface ContainerRuntimeInputs {
  imageRef: string;
  env: ReadonlyArray<[string, Buffer]>;
  /** Host path of each volume, by volume name. */
  volumePaths: ReadonlyMap<string, string>;
  /** The pod's own directory (hosts file, termination logs). */
  podDir: string;
  /** The pod's managed /etc/hosts. */
  hostsFile?: string;
  attempt: number;
  type: ContainerType;
  resources: ResourceOptions;
}

function securityContext(pod: Pod, container: Container): LinuxContainerSecurityContext {
  const podContext = pod.spec?.securityContext ?? {};
  const context = container.securityContext ?? {};
  const runAsUser = context.runAsUser ?? podContext.runAsUser;
  const runAsGroup = context.runAsGroup ?? podContext.runAsGroup;
  const spec = pod.spec ?? { containers: [] };
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
      pid: spec.hostPID ? 'NODE' : spec.shareProcessNamespace ? 'POD' : 'CONTAINER',
      ipc: spec.hostIPC ? 'NODE' : 'POD',
    },
  };
}

async function mounts(container: Container, inputs: ContainerRuntimeInputs): Promise<Mount[]> {
  const result: Mount[] = [];
  for (const mount of container.volumeMounts ?? []) {
    const base = inputs.volumePaths.get(mount.name);
    if (base === undefined) throw new ContainerConfigError(`cannot find volume "${mount.name}" to mount into container "${container.name}"`);
    let hostPath = base;
    if (mount.subPath) {
      const sub = normalize(mount.subPath);
      if (sub.startsWith('..') || sub.startsWith('/'))
        throw new ContainerConfigError(`subPath ${JSON.stringify(mount.subPath)} must be relative and may not leave the volume`);
      hostPath = join(base, sub);
      await mkdir(hostPath, { recursive: true }).catch(() => undefined);
    }
    result.push({
      containerPath: mount.mountPath,
      hostPath,
      readonly: mount.readOnly === true,
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
    mounts: await mounts(container, inputs),
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
    linux: { resources: linuxResources(pod, container, inputs.resources), securityContext: securityContext(pod, container) },
  };
}

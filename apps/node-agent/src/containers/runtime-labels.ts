import { createHash } from 'node:crypto';
import type { Container, Pod } from '@svc/api';

/**
 * Labels and annotations the agent puts on every sandbox and container it creates. Labels carry the
 * pod's identity, so that a restarted agent finds what it already runs (and tools such as crictl
 * show it); Kubernetes' own keys are used so that they read the same.
 */
export const LABEL_POD_UID = 'io.kubernetes.pod.uid';
export const LABEL_POD_NAME = 'io.kubernetes.pod.name';
export const LABEL_POD_NAMESPACE = 'io.kubernetes.pod.namespace';
export const LABEL_CONTAINER_NAME = 'io.kubernetes.container.name';
/** Marks what this agent created (a runtime may be shared with other clients). */
export const LABEL_MANAGED_BY = 'svc.io/managed-by';
export const MANAGED_BY_VALUE = 'svc-node-agent';
/** `init` or `regular`. */
export const LABEL_CONTAINER_TYPE = 'svc.io/container-type';

export const ANNOTATION_CONTAINER_HASH = 'io.kubernetes.container.hash';
export const ANNOTATION_RESTART_COUNT = 'io.kubernetes.container.restartCount';
export const ANNOTATION_TERMINATION_GRACE = 'io.kubernetes.pod.terminationGracePeriod';
export const ANNOTATION_TERMINATION_MESSAGE_PATH = 'io.kubernetes.container.terminationMessagePath';

export function podLabels(pod: Pod): Record<string, string> {
  return {
    [LABEL_POD_UID]: pod.metadata?.uid ?? '',
    [LABEL_POD_NAME]: pod.metadata?.name ?? '',
    [LABEL_POD_NAMESPACE]: pod.metadata?.namespace ?? '',
    [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
  };
}

/**
 * What of a container's spec a running container must match: a change (the image, in a pod's
 * mutable spec) makes the agent replace the container, as Kubernetes does on a hash change.
 */
export function containerHash(container: Container): string {
  const { image, command, args, env, envFrom, workingDir, ports, volumeMounts, resources, securityContext, name } = container;
  return createHash('sha256')
    .update(JSON.stringify({ name, image, command, args, env, envFrom, workingDir, ports, volumeMounts, resources, securityContext }))
    .digest('hex')
    .slice(0, 16);
}

/** The directory of a pod's container logs, as Kubernetes names it: `<namespace>_<name>_<uid>`. */
export function podLogDirectoryName(pod: { namespace: string; name: string; uid: string }): string {
  return `${pod.namespace}_${pod.name}_${pod.uid}`;
}

/** A container's log file, relative to the pod's log directory. */
export function containerLogPath(containerName: string, attempt: number): string {
  return `${containerName}/${attempt}.log`;
}

import { isCriNotFound, type CriClient, type PodSandbox, type PodSandboxStatus, type RuntimeContainerStatus } from '@svc/cri';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID } from '../containers/runtime-labels';

/**
 * What the runtime holds of one pod, as one look at it found (the kubelet's PodStatus from the
 * runtime). The executor keeps it up to date as it acts, so that a status written right after needs
 * no second look.
 */
export interface RuntimePod {
  /** Every sandbox of the pod, newest first. */
  sandboxes: Array<PodSandbox | PodSandboxStatus>;
  /** The ready sandbox containers run in, when there is one, and its attempt. */
  sandboxId?: string;
  sandboxAttempt: number;
  /** The addresses of the ready sandbox, from the runtime. */
  podIPs: string[];
  /** Every runtime container of the pod, newest first. */
  containers: RuntimeContainerStatus[];
  /** The sandbox each container belongs to (ListContainers says; ContainerStatus does not). */
  sandboxOf: Map<string, string>;
}

export function emptyRuntimePod(): RuntimePod {
  return { sandboxes: [], sandboxAttempt: 0, podIPs: [], containers: [], sandboxOf: new Map() };
}

function byNewest(a: { createdAt: number }, b: { createdAt: number }): number {
  return b.createdAt - a.createdAt;
}

/** The spec container a runtime container runs. */
export function containerNameOf(container: RuntimeContainerStatus): string {
  return container.labels?.[LABEL_CONTAINER_NAME] ?? container.metadata?.name ?? '';
}

/** The pod's runtime state as a relist sees it: each sandbox and container with its state. */
export function runtimeSignature(items: readonly { id: string; state: string }[]): string {
  return items
    .map((item) => `${item.id}:${item.state}`)
    .sort()
    .join(',');
}

export function signatureOf(pod: RuntimePod): string {
  return runtimeSignature([...pod.sandboxes, ...pod.containers]);
}

/** Looks at the runtime: the pod's sandboxes and containers (with their statuses), and the ready sandbox's IPs. */
export async function observeRuntimePod(cri: CriClient, uid: string): Promise<RuntimePod> {
  const sandboxes = (await cri.listPodSandbox({ labelSelector: { [LABEL_POD_UID]: uid } })).sort(byNewest);
  const list = await cri.listContainers({ labelSelector: { [LABEL_POD_UID]: uid } });
  const observed: RuntimePod = { ...emptyRuntimePod(), sandboxes, sandboxOf: new Map(list.map((c) => [c.id, c.podSandboxId])) };
  for (const c of list) {
    try {
      observed.containers.push(await cri.containerStatus(c.id));
    } catch (error) {
      if (!isCriNotFound(error)) throw error;
    }
  }
  observed.containers.sort(byNewest);
  const ready = sandboxes.find((s) => s.state === 'SANDBOX_READY');
  if (ready) await useSandbox(cri, observed, ready.id, ready.metadata?.attempt ?? 0);
  return observed;
}

/** Makes `id` the sandbox containers start in, with its IPs from the runtime; its status, when it could be read. */
export async function useSandbox(cri: CriClient, observed: RuntimePod, id: string, attempt: number): Promise<PodSandboxStatus | undefined> {
  observed.sandboxId = id;
  observed.sandboxAttempt = attempt;
  const status = await cri.podSandboxStatus(id).catch(() => undefined);
  if (status?.network?.ip) observed.podIPs = [status.network.ip, ...(status.network.additionalIps ?? []).map((a) => a.ip)];
  return status;
}

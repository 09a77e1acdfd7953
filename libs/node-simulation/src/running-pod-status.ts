import { metaTime } from '@svc/machinery';
import type { Pod, PodStatus } from '@svc/api';

export interface RunningPodStatusOptions {
  /** The pod's IP. */
  podIP: string;
  /** The node's IP, when the pod is on a node. */
  hostIP?: string;
  ready: boolean;
  now?: Date;
}

/**
 * The status a node agent writes for a pod whose containers run: phase Running, its IPs, the start
 * time, running container statuses, and the Initialized, ContainersReady and Ready conditions (the
 * last two True or False as `ready` says), each keeping its transition time while unchanged.
 */
export function runningPodStatus(pod: Pod, options: RunningPodStatusOptions): PodStatus {
  const now = metaTime(options.now ?? new Date());
  const readyText = options.ready ? 'True' : 'False';
  const previous = new Map((pod.status?.conditions ?? []).map((c) => [c.type, c]));
  const condition = (type: string, status: 'True' | 'False') => {
    const before = previous.get(type);
    return {
      type,
      status,
      lastTransitionTime: before?.status === status && before.lastTransitionTime ? before.lastTransitionTime : now,
      ...(status === 'False' && type !== 'Initialized' ? { reason: 'ContainersNotReady', message: 'containers with unready status' } : {}),
    };
  };
  const startTime = pod.status?.startTime ?? now;
  return {
    phase: 'Running',
    ...(options.hostIP ? { hostIP: options.hostIP, hostIPs: [{ ip: options.hostIP }] } : {}),
    podIP: options.podIP,
    podIPs: [{ ip: options.podIP }],
    startTime,
    conditions: [condition('Initialized', 'True'), condition('ContainersReady', readyText), condition('Ready', readyText)],
    containerStatuses: pod.spec.containers.map((c) => ({
      name: c.name,
      image: c.image,
      ready: options.ready,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: startTime } },
    })),
  };
}

/** Whether the pod already shows what {@link runningPodStatus} would write (so that nothing need be written). */
export function showsRunning(pod: Pod, ready: boolean): boolean {
  const status = pod.status;
  if (status?.phase !== 'Running' || !status.podIP) return false;
  return status.conditions?.find((c) => c.type === 'Ready')?.status === (ready ? 'True' : 'False');
}

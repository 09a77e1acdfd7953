import type { Pod, PodCondition } from '@svc/api';

/** The pod's `Ready` condition, if it has one. */
export function podReadyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** Ready: the `Ready` condition is `True` (set by the node agent, or by tests through `status`). */
export function isPodReady(pod: Pod): boolean {
  return podReadyCondition(pod)?.status === 'True';
}

/**
 * Available: ready for at least `minReadySeconds` (measured from the Ready condition's last
 * transition) as of `nowMs`. With `minReadySeconds` 0, ready is available.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  const ready = podReadyCondition(pod);
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= nowMs;
}

/**
 * When a ready pod becomes available (ms since epoch), for scheduling the next check of a
 * controller waiting on `minReadySeconds`; undefined when the pod is not ready or already counts.
 */
export function podAvailableAt(pod: Pod, minReadySeconds: number, nowMs: number): number | undefined {
  const ready = podReadyCondition(pod);
  if (ready?.status !== 'True' || minReadySeconds <= 0) return undefined;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  if (!Number.isFinite(since)) return undefined;
  const at = since + minReadySeconds * 1000;
  return at > nowMs ? at : undefined;
}

/** Being deleted: a deletion timestamp is set (finalizers or a grace period keep it around). */
export function isPodTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

/** Counts towards a ReplicaSet's replicas: not finished (Succeeded/Failed) and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !isPodTerminating(pod);
}

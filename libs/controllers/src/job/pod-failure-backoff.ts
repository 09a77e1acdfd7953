import type { Pod } from '@svc/api';

/** Kubernetes' DefaultJobPodFailureBackOff: the wait before replacing a pod after its first failure. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
/** Kubernetes' MaxJobPodFailureBackOff: the doubling stops here. */
export const MAX_POD_FAILURE_BACKOFF_MS = 360_000;

/** Failures since the Job's last success, and when the latest of them happened (Kubernetes' backoffRecord). */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureMs?: number;
}

function parseMs(time: string | undefined | null): number | undefined {
  if (!time) return undefined;
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * When a pod ended (Kubernetes' getFinishedTime): the latest finishedAt of its terminated containers,
 * else when its Ready condition turned False, else its deletion time, else its creation.
 */
export function podFinishedMs(pod: Pod): number {
  let latest: number | undefined;
  for (const status of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) {
    const at = parseMs(status.state?.terminated?.finishedAt);
    if (at !== undefined && (latest === undefined || at > latest)) latest = at;
  }
  if (latest !== undefined) return latest;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False');
  return parseMs(ready?.lastTransitionTime) ?? parseMs(pod.metadata?.deletionTimestamp) ?? parseMs(pod.metadata?.creationTimestamp) ?? 0;
}

/**
 * The record after this sync's newly finished pods (Kubernetes' newBackoffRecord): a success resets
 * the count, and only failures after the latest success then count.
 */
export function nextBackoffRecord(previous: BackoffRecord, newSucceeded: readonly Pod[], newFailed: readonly Pod[]): BackoffRecord {
  if (newFailed.length === 0 && newSucceeded.length === 0) return previous;
  const failedTimes = newFailed.map(podFinishedMs).sort((a, b) => a - b);
  if (newSucceeded.length === 0) {
    return { failuresAfterLastSuccess: previous.failuresAfterLastSuccess + failedTimes.length, lastFailureMs: failedTimes[failedTimes.length - 1] };
  }
  const lastSuccess = Math.max(...newSucceeded.map(podFinishedMs));
  const after = failedTimes.filter((t) => t > lastSuccess);
  return after.length === 0 ? { failuresAfterLastSuccess: 0 } : { failuresAfterLastSuccess: after.length, lastFailureMs: after[after.length - 1] };
}

/** The backoff after `failures` failures: 10 s, doubling, at most 6 minutes; 0 without failures. */
export function backoffDelayMs(failures: number, baseMs = POD_FAILURE_BACKOFF_MS, maxMs = MAX_POD_FAILURE_BACKOFF_MS): number {
  if (failures <= 0) return 0;
  let delay = baseMs;
  for (let i = 1; i < failures; i++) {
    delay *= 2;
    if (delay >= maxMs) return maxMs;
  }
  return Math.min(delay, maxMs);
}

/** How long pod creation still waits after `failures` failures, the latest at `lastFailureMs` (0: create now). */
export function remainingBackoffMs(failures: number, lastFailureMs: number | undefined, nowMs: number): number {
  if (failures <= 0 || lastFailureMs === undefined) return 0;
  const remaining = backoffDelayMs(failures) - (nowMs - lastFailureMs);
  return remaining > 0 ? remaining : 0;
}

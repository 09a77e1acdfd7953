import type { Pod, StatefulSet } from '@svc/api';
import { isPodAvailable, isPodReady, isPodTerminating, podAvailableAt } from '../common/pod-status';
import { podRevision } from './stateful-pod-identity';

export type StatefulSetStatus = NonNullable<StatefulSet['status']>;

/** Running with the Ready condition true (Kubernetes' isRunningAndReady). */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod);
}

/** Running and ready for `minReadySeconds` (Kubernetes' isRunningAndAvailable). */
export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  return pod.status?.phase === 'Running' && isPodAvailable(pod, minReadySeconds, nowMs);
}

/** Running, ready and not being deleted (Kubernetes' isHealthy). */
export function isHealthy(pod: Pod): boolean {
  return isRunningAndReady(pod) && !isPodTerminating(pod);
}

/** Finished: Succeeded or Failed (a StatefulSet's pods restart always, so only eviction or a node's failure finishes one). */
export function isFinished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

export interface RevisionNames {
  current: string;
  update: string;
}

/**
 * The counts of the set's pods (Kubernetes' computeReplicaStatus): every pod; those running and
 * ready; those available; and, of the pods not being deleted, those of the current and of the
 * update revision.
 */
export function countReplicas(
  pods: readonly Pod[],
  minReadySeconds: number,
  revisions: RevisionNames,
  nowMs: number,
): Pick<StatefulSetStatus, 'replicas' | 'readyReplicas' | 'availableReplicas' | 'currentReplicas' | 'updatedReplicas'> {
  let replicas = 0;
  let readyReplicas = 0;
  let availableReplicas = 0;
  let currentReplicas = 0;
  let updatedReplicas = 0;
  for (const pod of pods) {
    replicas++;
    if (isRunningAndReady(pod)) {
      readyReplicas++;
      if (isRunningAndAvailable(pod, minReadySeconds, nowMs)) availableReplicas++;
    }
    if (!isPodTerminating(pod)) {
      const revision = podRevision(pod);
      if (revision === revisions.current) currentReplicas++;
      if (revision === revisions.update) updatedReplicas++;
    }
  }
  return { replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas };
}

/**
 * Once a rolling update has every pod updated and ready, the update revision becomes the current
 * one (Kubernetes' completeRollingUpdate). OnDelete never completes so: its current revision stays.
 */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): StatefulSetStatus {
  if (set.spec.updateStrategy?.type === 'RollingUpdate' && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    return { ...status, currentReplicas: status.updatedReplicas, currentRevision: status.updateRevision };
  }
  return status;
}

const COMPARED = [
  'observedGeneration',
  'replicas',
  'readyReplicas',
  'availableReplicas',
  'currentReplicas',
  'updatedReplicas',
  'currentRevision',
  'updateRevision',
  'collisionCount',
] as const satisfies ReadonlyArray<keyof StatefulSetStatus>;

/** Whether the stored status differs from `status` in a field the controller writes (Kubernetes' inconsistentStatus). */
export function statusNeedsUpdate(set: StatefulSet, status: StatefulSetStatus): boolean {
  const stored = set.status ?? {};
  return COMPARED.some((key) => (stored[key] ?? 0) !== (status[key] ?? 0));
}

/** When the next of the set's ready pods becomes available, in ms from now; undefined when none waits. */
export function nextAvailabilityInMs(pods: readonly Pod[], minReadySeconds: number, nowMs: number): number | undefined {
  let next: number | undefined;
  for (const pod of pods) {
    if (pod.status?.phase !== 'Running') continue;
    const at = podAvailableAt(pod, minReadySeconds, nowMs);
    if (at !== undefined && (next === undefined || at < next)) next = at;
  }
  return next === undefined ? undefined : next - nowMs;
}

import { metaTime } from '@svc/machinery';
import type { Pod, ReplicaSet } from '@svc/api';
import { isPodAvailable, isPodReady, podAvailableAt } from '../common/pod-status';

export type ReplicaSetStatus = NonNullable<ReplicaSet['status']>;
export type ReplicaSetCondition = NonNullable<ReplicaSetStatus['conditions']>[number];

/** The condition a ReplicaSet carries while creating or deleting its pods fails. */
export const REPLICA_FAILURE = 'ReplicaFailure';

function matchesAll(labels: Readonly<Record<string, string>> | undefined, wanted: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(wanted)) if (labels?.[key] !== value) return false;
  return true;
}

/**
 * The status of `rs` given its active pods (Kubernetes' calculateStatus): counts of all, fully
 * labelled (every template label), ready and available pods; `terminatingReplicas` when counted (the
 * DeploymentReplicaSetTerminatingReplicas gate), absent otherwise; a `ReplicaFailure` condition added
 * when managing the pods failed (`failure`) and there was none, removed when managing them went well.
 * Everything else (observedGeneration, other conditions) is carried over from the current status.
 */
export function calculateStatus(
  rs: ReplicaSet,
  pods: readonly Pod[],
  failure: { message: string } | undefined,
  nowMs: number,
  terminating?: number,
): ReplicaSetStatus {
  const templateLabels = rs.spec.template.metadata?.labels ?? {};
  const minReadySeconds = rs.spec.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (matchesAll(pod.metadata?.labels, templateLabels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, nowMs)) available++;
    }
  }
  const status: ReplicaSetStatus = { ...rs.status };
  let conditions = [...(rs.status?.conditions ?? [])];
  const hasFailure = conditions.some((c) => c.type === REPLICA_FAILURE);
  if (failure && !hasFailure) {
    const diff = pods.length - (rs.spec.replicas ?? 1);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : undefined;
    const condition: ReplicaSetCondition = { type: REPLICA_FAILURE, status: 'True', lastTransitionTime: metaTime(nowMs), message: failure.message };
    if (reason) condition.reason = reason;
    conditions.push(condition);
  } else if (!failure && hasFailure) {
    conditions = conditions.filter((c) => c.type !== REPLICA_FAILURE);
  }
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  status.replicas = pods.length;
  status.fullyLabeledReplicas = fullyLabeled;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  if (terminating === undefined) delete status.terminatingReplicas;
  else status.terminatingReplicas = terminating;
  return status;
}

/**
 * Whether writing `status` would change anything (Kubernetes' updateReplicaSetStatus short cut): the
 * counts, the conditions, or an observedGeneration behind the object's generation.
 */
export function statusNeedsUpdate(rs: ReplicaSet, status: ReplicaSetStatus): boolean {
  const current = rs.status ?? {};
  return (
    (current.replicas ?? 0) !== (status.replicas ?? 0) ||
    (current.fullyLabeledReplicas ?? 0) !== (status.fullyLabeledReplicas ?? 0) ||
    (current.readyReplicas ?? 0) !== (status.readyReplicas ?? 0) ||
    (current.availableReplicas ?? 0) !== (status.availableReplicas ?? 0) ||
    current.terminatingReplicas !== status.terminatingReplicas ||
    Number(rs.metadata?.generation ?? 0) !== Number(current.observedGeneration ?? 0) ||
    JSON.stringify(current.conditions ?? []) !== JSON.stringify(status.conditions ?? [])
  );
}

/**
 * Milliseconds until the first ready pod that does not count as available yet reaches
 * `minReadySeconds`; undefined when no pod is waiting for that.
 */
export function nextAvailabilityCheckMs(rs: ReplicaSet, pods: readonly Pod[], nowMs: number): number | undefined {
  const minReadySeconds = rs.spec.minReadySeconds ?? 0;
  if (minReadySeconds <= 0) return undefined;
  let first: number | undefined;
  for (const pod of pods) {
    const at = podAvailableAt(pod, minReadySeconds, nowMs);
    if (at !== undefined && (first === undefined || at < first)) first = at;
  }
  return first === undefined ? undefined : first - nowMs;
}

import { metaTime } from '@svc/machinery';
import type { Deployment, ReplicaSet } from '@svc/api';
import { CONDITION_AVAILABLE, CONDITION_PROGRESSING, CONDITION_REPLICA_FAILURE, Reasons } from './deployment-keys';
import { semanticEqual } from '../common/object-hash';
import { sumAvailableReplicas, sumReadyReplicas, sumSpecReplicas, sumStatusReplicas } from './replica-set-counts';
import { desiredReplicas, maxUnavailable } from './rolling-update-bounds';

export type DeploymentStatus = NonNullable<Deployment['status']>;
export type DeploymentCondition = NonNullable<DeploymentStatus['conditions']>[number];
type ConditionStatus = DeploymentCondition['status'];

const MAX_INT32 = 2147483647;

export function newCondition(type: string, status: ConditionStatus, reason: string, message: string, now: Date): DeploymentCondition {
  const at = metaTime(now);
  return { type, status, lastUpdateTime: at, lastTransitionTime: at, reason, message };
}

export function getCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * Sets a condition on `status` (in place). The same status and reason already there is left as it
 * is; the same status with another reason keeps its lastTransitionTime.
 */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = current && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime } : condition;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
  if (status.conditions.length === 0) delete status.conditions;
}

export function hasProgressDeadline(d: Deployment): boolean {
  const seconds = d.spec.progressDeadlineSeconds;
  return seconds !== undefined && seconds !== null && seconds !== MAX_INT32;
}

/** Zero counts are left out, as Kubernetes' omitempty fields are (collisionCount is a pointer: 0 stays). */
function compact(status: DeploymentStatus): DeploymentStatus {
  const out: DeploymentStatus = {};
  for (const [key, value] of Object.entries(status) as [keyof DeploymentStatus, unknown][]) {
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    if (value === 0 && key !== 'collisionCount') continue;
    (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** Equal once zero counts and absent fields are taken as one. */
export function sameStatus(a: DeploymentStatus | undefined, b: DeploymentStatus | undefined): boolean {
  return semanticEqual(compact(a ?? {}), compact(b ?? {}));
}

/**
 * The Deployment's status from its ReplicaSets (Kubernetes' calculateStatus): pod counts summed
 * over them, updated ones from the new ReplicaSet, and the Available condition (available pods at
 * least spec.replicas - maxUnavailable). Other conditions are carried over.
 */
export function calculateStatus(allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment, now: Date): DeploymentStatus {
  const available = sumAvailableReplicas(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: Number(d.metadata?.generation ?? 0),
    replicas: sumStatusReplicas(allRSs),
    updatedReplicas: newRS ? sumStatusReplicas([newRS]) : 0,
    readyReplicas: sumReadyReplicas(allRSs),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, sumSpecReplicas(allRSs) - available),
    collisionCount: d.status?.collisionCount,
    conditions: (d.status?.conditions ?? []).map((c) => ({ ...c })),
  };
  if (available >= desiredReplicas(d) - maxUnavailable(d)) {
    setCondition(status, newCondition(CONDITION_AVAILABLE, 'True', Reasons.minimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition(CONDITION_AVAILABLE, 'False', Reasons.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return compact(status);
}

/** Every desired replica updated and available, no old pods left, and this generation seen. */
export function deploymentComplete(d: Deployment, status: DeploymentStatus): boolean {
  const replicas = desiredReplicas(d);
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= Number(d.metadata?.generation ?? 0)
  );
}

/** Progress since the stored status: more updated, ready or available pods, or fewer old ones. */
export function deploymentProgressing(d: Deployment, next: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const nextOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (
    (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    nextOld < oldOld ||
    (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** The Progressing condition reports no progress for longer than progressDeadlineSeconds. */
export function deploymentTimedOut(d: Deployment, next: DeploymentStatus, now: Date): boolean {
  if (!hasProgressDeadline(d)) return false;
  const condition = getCondition(next, CONDITION_PROGRESSING);
  if (!condition) return false;
  // A finished rollout is not judged again (a resync may run before the condition of a new
  // ReplicaSet is stored).
  if (condition.reason === Reasons.newReplicaSetAvailable) return false;
  if (condition.reason === Reasons.progressDeadlineExceeded) return true;
  const from = condition.lastUpdateTime ? Date.parse(condition.lastUpdateTime) : NaN;
  if (!Number.isFinite(from)) return false;
  return from + d.spec.progressDeadlineSeconds! * 1000 < now.getTime();
}

/** Kubernetes' getReplicaFailures: the new ReplicaSet's ReplicaFailure conditions, else any old one's. */
export function replicaFailureConditions(allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentCondition[] {
  const of = (rs: ReplicaSet) =>
    (rs.status?.conditions ?? [])
      .filter((c) => c.type === CONDITION_REPLICA_FAILURE)
      .map((c): DeploymentCondition => ({
        type: c.type,
        status: c.status,
        lastUpdateTime: c.lastTransitionTime,
        lastTransitionTime: c.lastTransitionTime,
        reason: c.reason,
        message: c.message,
      }));
  const fromNew = newRS ? of(newRS) : [];
  return fromNew.length > 0 ? fromNew : allRSs.flatMap(of);
}

/**
 * The status a rollout step leaves (Kubernetes' syncRolloutStatus): calculateStatus, then the
 * Progressing condition (NewReplicaSetAvailable once complete, ReplicaSetUpdated with a fresh
 * lastUpdateTime on any progress, ProgressDeadlineExceeded past the deadline; removed without a
 * deadline), then the ReplicaFailure condition of the ReplicaSets.
 */
export function rolloutStatus(allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment, now: Date): DeploymentStatus {
  const status = calculateStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeCondition(status, CONDITION_PROGRESSING);

  const current = getCondition(d.status, CONDITION_PROGRESSING);
  const alreadyComplete = (status.replicas ?? 0) === (status.updatedReplicas ?? 0) && current?.reason === Reasons.newReplicaSetAvailable;
  if (hasProgressDeadline(d) && !alreadyComplete) {
    const subject = newRS ? `ReplicaSet "${newRS.metadata?.name}"` : `Deployment "${d.metadata?.name}"`;
    if (deploymentComplete(d, status)) {
      setCondition(status, newCondition(CONDITION_PROGRESSING, 'True', Reasons.newReplicaSetAvailable, `${subject} has successfully progressed.`, now));
    } else if (deploymentProgressing(d, status)) {
      // The same reason again still moves lastUpdateTime: that is what the deadline is measured from.
      const condition = newCondition(CONDITION_PROGRESSING, 'True', Reasons.replicaSetUpdated, `${subject} is progressing.`, now);
      if (current?.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
      removeCondition(status, CONDITION_PROGRESSING);
      setCondition(status, condition);
    } else if (deploymentTimedOut(d, status, now)) {
      setCondition(status, newCondition(CONDITION_PROGRESSING, 'False', Reasons.progressDeadlineExceeded, `${subject} has timed out progressing.`, now));
    }
  }

  const failures = replicaFailureConditions(allRSs, newRS);
  if (failures.length > 0) setCondition(status, failures[0]);
  else removeCondition(status, CONDITION_REPLICA_FAILURE);
  return status;
}

/**
 * When to look again for the progress deadline (Kubernetes' requeueStuckDeployment), in ms: the
 * Progressing condition's last update plus the deadline, one second late against clock skew; 0
 * to look at once; undefined when there is nothing to watch (no deadline, complete, timed out).
 */
export function progressCheckDelayMs(d: Deployment, status: DeploymentStatus, now: Date): number | undefined {
  const condition = getCondition(status, CONDITION_PROGRESSING);
  if (!hasProgressDeadline(d) || !condition) return undefined;
  if (deploymentComplete(d, status) || condition.reason === Reasons.progressDeadlineExceeded) return undefined;
  if (condition.reason === Reasons.paused) return undefined;
  const from = condition.lastUpdateTime ? Date.parse(condition.lastUpdateTime) : NaN;
  if (!Number.isFinite(from)) return undefined;
  const after = from + d.spec.progressDeadlineSeconds! * 1000 - now.getTime();
  return after < 1000 ? 0 : after + 1000;
}

/**
 * The Progressing condition a pause or resume sets (Kubernetes' checkPausedConditions), so that
 * time spent paused never counts against the deadline; undefined when nothing changes. A timed-out
 * rollout keeps saying so.
 */
export function pausedConditionChange(d: Deployment, now: Date): DeploymentCondition | undefined {
  if (!hasProgressDeadline(d)) return undefined;
  const current = getCondition(d.status, CONDITION_PROGRESSING);
  if (current?.reason === Reasons.progressDeadlineExceeded) return undefined;
  const pausedNow = current?.reason === Reasons.paused;
  if (d.spec.paused && !pausedNow) return newCondition(CONDITION_PROGRESSING, 'Unknown', Reasons.paused, 'Deployment is paused', now);
  if (!d.spec.paused && pausedNow) return newCondition(CONDITION_PROGRESSING, 'Unknown', Reasons.resumed, 'Deployment is resumed', now);
  return undefined;
}

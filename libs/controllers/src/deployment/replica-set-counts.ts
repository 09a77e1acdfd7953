import type { ReplicaSet } from '@svc/api';

/** spec.replicas, as defaulted by the API server when a writer left it out. */
export function specReplicas(rs: Pick<ReplicaSet, 'spec'>): number {
  return rs.spec?.replicas ?? 1;
}

/** ReplicaSets that are meant to run pods (spec.replicas > 0): Kubernetes' FilterActiveReplicaSets. */
export function activeReplicaSets(replicaSets: readonly ReplicaSet[]): ReplicaSet[] {
  return replicaSets.filter((rs) => specReplicas(rs) > 0);
}

export function sumSpecReplicas(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((n, rs) => n + specReplicas(rs), 0);
}

export function sumStatusReplicas(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0);
}

export function sumReadyReplicas(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((n, rs) => n + (rs.status?.readyReplicas ?? 0), 0);
}

export function sumAvailableReplicas(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
}

/**
 * The available pods a ReplicaSet is sure to keep: status.availableReplicas, but never more than
 * spec.replicas. A ReplicaSet just scaled down still reports the pods it is about to delete (its
 * controller removes unavailable pods first), so counting them would let a rollout take more
 * pods down than maxUnavailable allows. Rollout decisions use this; reported status does not.
 */
export function dependableAvailable(rs: ReplicaSet): number {
  return Math.max(0, Math.min(rs.status?.availableReplicas ?? 0, specReplicas(rs)));
}

export function sumDependableAvailable(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((n, rs) => n + dependableAvailable(rs), 0);
}

/**
 * The pods a ReplicaSet may have right now: its spec.replicas, or more while it has not yet
 * removed the pods of a scale-down (status.replicas still counts them).
 */
export function possiblePods(rs: ReplicaSet): number {
  return Math.max(specReplicas(rs), rs.status?.replicas ?? 0);
}

export function sumPossiblePods(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((n, rs) => n + possiblePods(rs), 0);
}

function creationMs(rs: ReplicaSet): number {
  const t = rs.metadata?.creationTimestamp ? Date.parse(rs.metadata.creationTimestamp) : NaN;
  return Number.isFinite(t) ? t : 0;
}

/** Oldest first, ties by name (Kubernetes' ReplicaSetsByCreationTimestamp). */
export function byCreationTimestamp(a: ReplicaSet, b: ReplicaSet): number {
  const d = creationMs(a) - creationMs(b);
  if (d !== 0) return d;
  const an = a.metadata?.name ?? '';
  const bn = b.metadata?.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** Largest first, ties newest first: who takes replicas first when scaling up. */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  const d = specReplicas(b) - specReplicas(a);
  return d !== 0 ? d : byCreationTimestamp(b, a);
}

/** Largest first, ties oldest first: who gives replicas first when scaling down. */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  const d = specReplicas(b) - specReplicas(a);
  return d !== 0 ? d : byCreationTimestamp(a, b);
}

import type { Deployment, ReplicaSet } from '@svc/api';
import { byCreationTimestamp, dependableAvailable, specReplicas, sumDependableAvailable, sumPossiblePods, sumSpecReplicas } from './replica-set-counts';
import { desiredReplicas, isRollingUpdate, maxUnavailable, valueFromIntOrPercent } from './rolling-update-bounds';

/** A ReplicaSet and the spec.replicas it should get. */
export interface ScaleTarget {
  rs: ReplicaSet;
  replicas: number;
}

/**
 * The size a new ReplicaSet gets next (Kubernetes' NewRSNewReplicas): under RollingUpdate it grows
 * only while all ReplicaSets together stay within spec.replicas + maxSurge, and never past
 * spec.replicas; under Recreate it is sized at once (the caller waits for the old pods first).
 * Kubernetes sums spec.replicas; this sums {@link sumPossiblePods}, so that the new pods wait
 * until an old ReplicaSet has removed the pods of its scale-down, and the pods that exist at any
 * moment stay within the surge too, not only the sizes asked for; and it waits for every old
 * ReplicaSet's status to show its last spec, since until then its pods may outnumber its status.
 */
export function newReplicaSetReplicas(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet): number {
  const replicas = desiredReplicas(d);
  const current = specReplicas(newRS);
  if (!isRollingUpdate(d)) return replicas;
  // An old ReplicaSet whose controller has not synced its last change may still be making pods for
  // its former size (a sync under way creates what it set out to): its pods are not known until its
  // status has caught up.
  if (allRSs.some((rs) => rs !== newRS && !statusObserved(rs))) return current;
  const surge = valueFromIntOrPercent(d.spec.strategy?.rollingUpdate?.maxSurge ?? '25%', replicas, true);
  const maxTotal = replicas + surge;
  const total = sumPossiblePods(allRSs);
  if (total >= maxTotal) return current;
  return current + Math.max(0, Math.min(maxTotal - total, replicas - current));
}

function statusObserved(rs: ReplicaSet): boolean {
  return Number(rs.status?.observedGeneration ?? 0) >= Number(rs.metadata?.generation ?? 0);
}

/**
 * The new ReplicaSet's next size in a rolling update (Kubernetes' reconcileNewReplicaSet), or
 * undefined when it keeps its size. Above spec.replicas it is cut down at once.
 */
export function newReplicaSetTarget(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet): number | undefined {
  const replicas = desiredReplicas(d);
  const current = specReplicas(newRS);
  if (current === replicas) return undefined;
  if (current > replicas) return replicas;
  const next = newReplicaSetReplicas(d, allRSs, newRS);
  return next === current ? undefined : next;
}

/**
 * How far the old ReplicaSets shrink in this step of a rolling update (Kubernetes'
 * reconcileOldReplicaSets): first their unavailable replicas, oldest ReplicaSet first, within what
 * the new ReplicaSet's unavailable pods leave; then available ones, oldest first, only while at
 * least spec.replicas - maxUnavailable pods stay available. Availability is counted with
 * {@link dependableAvailable}, so a stale status never lets a step overshoot. Targets of changed
 * ReplicaSets only; empty when nothing may shrink now.
 */
export function oldReplicaSetsTargets(d: Deployment, allRSs: readonly ReplicaSet[], oldRSs: readonly ReplicaSet[], newRS: ReplicaSet): ScaleTarget[] {
  if (sumSpecReplicas(oldRSs) === 0) return [];
  const minAvailable = desiredReplicas(d) - maxUnavailable(d);
  const newUnavailable = specReplicas(newRS) - dependableAvailable(newRS);
  const maxScaledDown = sumSpecReplicas(allRSs) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return [];

  const sorted = [...oldRSs].sort(byCreationTimestamp);
  const sizes = new Map<ReplicaSet, number>(sorted.map((rs) => [rs, specReplicas(rs)]));

  // Unhealthy replicas first: removing them costs no availability, and left alone they could
  // block the rollout until its deadline.
  let cleaned = 0;
  for (const rs of sorted) {
    if (cleaned >= maxScaledDown) break;
    const size = sizes.get(rs)!;
    if (size === 0) continue;
    const unhealthy = size - dependableAvailable(rs);
    if (unhealthy <= 0) continue;
    const down = Math.min(maxScaledDown - cleaned, unhealthy);
    sizes.set(rs, size - down);
    cleaned += down;
  }

  const availableOf = (rs: ReplicaSet) => Math.min(dependableAvailable(rs), sizes.get(rs)!);
  const available = sorted.reduce((n, rs) => n + availableOf(rs), 0) + sumDependableAvailable([newRS]);
  const canScaleDown = available - minAvailable;
  let scaled = 0;
  for (const rs of sorted) {
    if (scaled >= canScaleDown) break;
    const size = sizes.get(rs)!;
    if (size === 0) continue;
    const down = Math.min(size, canScaleDown - scaled);
    sizes.set(rs, size - down);
    scaled += down;
  }
  return sorted.filter((rs) => sizes.get(rs) !== specReplicas(rs)).map((rs) => ({ rs, replicas: sizes.get(rs)! }));
}

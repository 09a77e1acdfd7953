import type { Deployment, ReplicaSet } from '@svc/api';
import { DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION } from './deployment-keys';
import { activeReplicaSets, byCreationTimestamp, bySizeNewer, bySizeOlder, specReplicas, sumSpecReplicas } from './replica-set-counts';
import { desiredReplicas, isRollingUpdate, maxSurge } from './rolling-update-bounds';
import type { ScaleTarget } from './rolling-update';

function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const value = rs.metadata?.annotations?.[key];
  if (value === undefined || !/^-?[0-9]+$/.test(value)) return undefined;
  return Number(value);
}

/** The Deployment's spec.replicas recorded on the ReplicaSet when it was last sized. */
export function desiredReplicasAnnotation(rs: ReplicaSet): number | undefined {
  return intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
}

/**
 * The only active ReplicaSet, or the newest when none is active (then it alone takes the whole
 * size); undefined when several are active and must be scaled in proportion.
 */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreationTimestamp(b, a));
  const active = activeReplicaSets(newRS ? [...newestFirst, newRS] : newestFirst);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/** The new ReplicaSet holds, and has available, every replica, and both sides agree on the size. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const replicas = desiredReplicas(d);
  return specReplicas(rs) === replicas && desiredReplicasAnnotation(rs) === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/** Kubernetes' integer.RoundToInt32: half away from zero. */
function round(value: number): number {
  return value < 0 ? Math.ceil(value - 0.5) : Math.floor(value + 0.5);
}

/** How many replicas the ReplicaSet gains (or loses) to keep its share of the Deployment's new size. */
export function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const size = specReplicas(rs);
  if (desiredReplicas(d) === 0) return -size;
  const deploymentReplicas = desiredReplicas(d) + maxSurge(d);
  // Without the annotation the Deployment's current size is the best guess; the min/max in
  // replicaSetProportion keeps the result within bounds anyway.
  const annotated = intAnnotation(rs, MAX_REPLICAS_ANNOTATION) ?? d.status?.replicas ?? 0;
  if (annotated <= 0) return 0;
  return round((size * deploymentReplicas) / annotated) - size;
}

/** The share of `toAdd` (positive or negative) this ReplicaSet takes, with `added` already handed out. */
export function replicaSetProportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

export interface ScalePlan {
  targets: ScaleTarget[];
  /** 'up' or 'down' for events; '' when only the annotations are brought up to date. */
  operation: 'up' | 'down' | '';
  /**
   * True when every target is written if only its size annotations are stale (proportional
   * scaling); false when a target of its current size is left alone.
   */
  annotateUnchanged: boolean;
}

/**
 * Kubernetes' scale(): sizes for a scaling event or a paused Deployment. One active ReplicaSet
 * (or the newest, when none is) takes the whole size; a saturated new ReplicaSet sends the old ones
 * to zero; otherwise, under RollingUpdate, the replicas added or removed are spread over the
 * active ReplicaSets in proportion to their size, larger first (newer first when growing, older
 * first when shrinking), the rounding leftover going to the first.
 */
export function planScale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ScalePlan {
  const replicas = desiredReplicas(d);
  const single = findActiveOrLatest(newRS, oldRSs);
  if (single) {
    const size = specReplicas(single);
    if (size === replicas) return { targets: [], operation: '', annotateUnchanged: false };
    return { targets: [{ rs: single, replicas }], operation: size < replicas ? 'up' : 'down', annotateUnchanged: false };
  }
  if (isSaturated(d, newRS)) {
    return { targets: activeReplicaSets(oldRSs).map((rs) => ({ rs, replicas: 0 })), operation: 'down', annotateUnchanged: false };
  }
  if (!isRollingUpdate(d)) return { targets: [], operation: '', annotateUnchanged: false };

  const all = activeReplicaSets(newRS ? [...oldRSs, newRS] : oldRSs);
  const allowedSize = replicas > 0 ? replicas + maxSurge(d) : 0;
  const toAdd = allowedSize - sumSpecReplicas(all);
  const operation = toAdd > 0 ? 'up' : toAdd < 0 ? 'down' : '';
  if (toAdd > 0) all.sort(bySizeNewer);
  else if (toAdd < 0) all.sort(bySizeOlder);

  let added = 0;
  const sizes = all.map((rs) => {
    if (toAdd === 0) return specReplicas(rs);
    const proportion = replicaSetProportion(rs, d, toAdd, added);
    added += proportion;
    return specReplicas(rs) + proportion;
  });
  if (all.length > 0 && toAdd !== 0) sizes[0] = Math.max(0, sizes[0] + toAdd - added);
  return { targets: all.map((rs, i) => ({ rs, replicas: sizes[i] })), operation, annotateUnchanged: true };
}

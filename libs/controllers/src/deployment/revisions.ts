import type { Deployment, ReplicaSet } from '@svc/api';
import {
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  LAST_APPLIED_CONFIG_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  MAX_REVISION_HISTORY_CHARS,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
} from './deployment-keys';
import { byCreationTimestamp, specReplicas } from './replica-set-counts';
import { desiredReplicas, maxSurge } from './rolling-update-bounds';

/** The revision annotation: 0 when absent, undefined when it is not an integer. */
export function revisionOf(obj: { metadata?: { annotations?: Record<string, string> } }): number | undefined {
  const value = obj.metadata?.annotations?.[REVISION_ANNOTATION];
  if (value === undefined) return 0;
  return /^[+-]?[0-9]+$/.test(value) ? Number(value) : undefined;
}

/** The highest revision among the ReplicaSets; unreadable ones are skipped. */
export function maxRevision(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((max, rs) => Math.max(max, revisionOf(rs) ?? 0), 0);
}

/** Lowest revision first; unreadable or equal revisions by creation time. */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = revisionOf(a);
  const rb = revisionOf(b);
  if (ra === undefined || rb === undefined || ra === rb) return byCreationTimestamp(a, b);
  return ra - rb;
}

// Annotations that describe the ReplicaSet itself, or are the Deployment's own bookkeeping.
const NOT_COPIED = new Set([
  LAST_APPLIED_CONFIG_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
]);

/** Copies the Deployment's annotations (change-cause and the like) onto the ReplicaSet; true when any changed. */
export function copyDeploymentAnnotations(d: Deployment, annotations: Record<string, string>): boolean {
  let changed = false;
  for (const [key, value] of Object.entries(d.metadata?.annotations ?? {})) {
    if (NOT_COPIED.has(key) || annotations[key] === value) continue;
    annotations[key] = value;
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = rs.metadata?.annotations ?? {};
  return annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || annotations[MAX_REPLICAS_ANNOTATION] !== String(max);
}

/** Records the Deployment's size and size plus surge on the ReplicaSet; true when either changed. */
export function setReplicasAnnotations(annotations: Record<string, string>, desired: number, max: number): boolean {
  let changed = false;
  if (annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired)) {
    annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
    changed = true;
  }
  if (annotations[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    annotations[MAX_REPLICAS_ANNOTATION] = String(max);
    changed = true;
  }
  return changed;
}

/** The size annotations a ReplicaSet of this Deployment carries. */
export function replicasAnnotationValues(d: Deployment): { desired: number; max: number } {
  return { desired: desiredReplicas(d), max: desiredReplicas(d) + maxSurge(d) };
}

/**
 * Kubernetes' SetNewReplicaSetAnnotations on a copy of the new ReplicaSet: the Deployment's
 * annotations copied over; the revision raised to `newRevision` when lower (a ReplicaSet that
 * becomes new again keeps its earlier revisions in the revision-history annotation, bounded in
 * length); the size annotations set when the ReplicaSet is about to be created. True when changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): boolean {
  rs.metadata ??= {};
  const annotations = (rs.metadata.annotations ??= {});
  let changed = copyDeploymentAnnotations(d, annotations);
  const oldRevision = annotations[REVISION_ANNOTATION];
  const hadRevision = oldRevision !== undefined;
  let oldRevisionNumber = 0;
  if (hadRevision && oldRevision !== '') {
    if (!/^[+-]?[0-9]+$/.test(oldRevision)) return changed;
    oldRevisionNumber = Number(oldRevision);
  }
  if (oldRevisionNumber < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (hadRevision) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') {
        annotations[REVISION_HISTORY_ANNOTATION] = oldRevision;
      } else {
        let revisions = history.split(',');
        let length = history.length + oldRevision.length + 1;
        while (length > MAX_REVISION_HISTORY_CHARS && revisions.length > 0) {
          length -= revisions[0].length + 1;
          revisions = revisions.slice(1);
        }
        if (length <= MAX_REVISION_HISTORY_CHARS) annotations[REVISION_HISTORY_ANNOTATION] = [...revisions, oldRevision].join(',');
      }
    }
  }
  if (!exists) {
    const { desired, max } = replicasAnnotationValues(d);
    if (setReplicasAnnotations(annotations, desired, max)) changed = true;
  }
  return changed;
}

/**
 * Old ReplicaSets beyond revisionHistoryLimit that may go, lowest revision first (Kubernetes'
 * cleanupDeployment): only those with no replicas wanted or running, whose controller has seen their
 * latest spec, and that are not already being deleted. None when the limit is unset.
 */
export function replicaSetsToCleanUp(d: Deployment, oldRSs: readonly ReplicaSet[]): ReplicaSet[] {
  const limit = d.spec.revisionHistoryLimit;
  if (limit === undefined || limit === null || limit === 2147483647) return [];
  const alive = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp);
  const excess = alive.length - limit;
  if (excess <= 0) return [];
  return [...alive]
    .sort(byRevision)
    .slice(0, excess)
    .filter((rs) => {
      const generation = Number(rs.metadata?.generation ?? 0);
      const observed = Number(rs.status?.observedGeneration ?? 0);
      return (rs.status?.replicas ?? 0) === 0 && specReplicas(rs) === 0 && generation <= observed;
    });
}

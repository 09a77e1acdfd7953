import type { ControllerRevision } from '@svc/api';
import { semanticEqual } from '../common/object-hash';

function creationMs(revision: ControllerRevision): number {
  const ms = Date.parse(revision.metadata?.creationTimestamp ?? '');
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * Oldest first: by revision number, ties broken by creation time, then by name (Kubernetes'
 * SortControllerRevisions). Returns a sorted copy.
 */
export function sortControllerRevisions(revisions: readonly ControllerRevision[]): ControllerRevision[] {
  return [...revisions].sort((a, b) => {
    if (a.revision !== b.revision) return a.revision - b.revision;
    const at = creationMs(a);
    const bt = creationMs(b);
    if (at !== bt) return at - bt;
    const an = a.metadata?.name ?? '';
    const bn = b.metadata?.name ?? '';
    return an < bn ? -1 : an > bn ? 1 : 0;
  });
}

/** The number the next revision takes: one more than the highest, 1 for the first. */
export function nextRevisionNumber(revisions: readonly ControllerRevision[]): number {
  let max = 0;
  for (const r of revisions) if (r.revision > max) max = r.revision;
  return max + 1;
}

/**
 * Whether two revisions record the same state (Kubernetes' EqualRevision). Kubernetes compares the
 * data byte for byte; data read back from the server may list its keys in another order, so it is
 * compared as values here. The hash labels are not compared: a revision renamed after a collision
 * keeps the hash it was made with, and Kubernetes' own comparison of them never applies to
 * safe-encoded hashes (they do not parse as numbers).
 */
export function equalRevision(a: ControllerRevision | undefined, b: ControllerRevision | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return semanticEqual(a.data, b.data);
}

/** The revisions equal to `needle`, in their order (Kubernetes' FindEqualRevisions). */
export function findEqualRevisions(revisions: readonly ControllerRevision[], needle: ControllerRevision): ControllerRevision[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

/**
 * The revisions to delete so that at most `limit` of those not `live` remain (the oldest go first);
 * live revisions (the current and update revisions, those pods still run) are never chosen
 * (Kubernetes' truncateHistory of the StatefulSet and cleanupHistory of the DaemonSet controllers).
 */
export function revisionsBeyondLimit(revisions: readonly ControllerRevision[], live: ReadonlySet<string>, limit: number): ControllerRevision[] {
  const old = sortControllerRevisions(revisions.filter((r) => !live.has(r.metadata?.name ?? '')));
  const excess = old.length - Math.max(0, limit);
  return excess > 0 ? old.slice(0, excess) : [];
}

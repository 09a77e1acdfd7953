import type { ControllerRevision, PodTemplateSpec, StatefulSet } from '@svc/api';
import { isRecord } from '@svc/machinery';
import { ControllerHistory, equalRevision, findEqualRevisions, newControllerRevision, nextRevisionNumber, sortControllerRevisions } from '../history';
import { STATEFUL_SET_KIND } from './stateful-pod-identity';

/**
 * What a StatefulSet's revision records (Kubernetes' getPatch): a strategic merge patch that puts
 * back its pod template whole, `{"spec":{"template":{...,"$patch":"replace"}}}`; `kubectl rollout
 * undo` sends it as it is.
 */
export function statefulSetRevisionData(set: StatefulSet): Record<string, unknown> {
  return { spec: { template: { ...structuredClone(set.spec.template), $patch: 'replace' } } };
}

/** A new revision of the set's template, numbered `revision` (Kubernetes' newRevision): the set's annotations go with it. */
export function newStatefulSetRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  const cr = newControllerRevision(set, STATEFUL_SET_KIND, set.spec.template.metadata?.labels, statefulSetRevisionData(set), revision, collisionCount);
  cr.metadata = { ...cr.metadata, annotations: { ...set.metadata?.annotations } };
  return cr;
}

/**
 * The set as `revision` recorded it (Kubernetes' ApplyRevision): the recorded template in place of
 * the set's. A revision without one leaves the set as it is.
 */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  const data = revision.data;
  const spec = isRecord(data) && isRecord(data.spec) ? data.spec : undefined;
  if (!spec || !isRecord(spec.template)) return set;
  const { $patch: _directive, ...template } = spec.template;
  return { ...set, spec: { ...set.spec, template: template as PodTemplateSpec } };
}

/** The revisions a sync of the set works with. */
export interface StatefulSetRevisions {
  /** The revision the pods not yet updated run (status.currentRevision, or the update revision for a new set). */
  current: ControllerRevision;
  /** The revision of the set's template now. */
  update: ControllerRevision;
  collisionCount: number;
  /** Every revision of the set, oldest first, the update revision included. */
  all: ControllerRevision[];
}

/**
 * Finds or makes the revision of the set's template (Kubernetes' getStatefulSetRevisions): the
 * newest revision when it records this template; an older one that does is renumbered to be the
 * newest (a rollback reuses its revision); otherwise a new one is created.
 */
export async function statefulSetRevisions(
  history: ControllerHistory,
  set: StatefulSet,
  existing: readonly ControllerRevision[],
): Promise<StatefulSetRevisions> {
  const revisions = sortControllerRevisions(existing);
  let collisionCount = set.status?.collisionCount ?? 0;
  const candidate = newStatefulSetRevision(set, nextRevisionNumber(revisions), collisionCount);
  const equal = findEqualRevisions(revisions, candidate);
  const latest = revisions[revisions.length - 1];
  let update: ControllerRevision;
  if (equal.length > 0 && equalRevision(latest, equal[equal.length - 1])) {
    update = latest;
  } else if (equal.length > 0) {
    update = await history.renumber(equal[equal.length - 1], candidate.revision);
  } else {
    const created = await history.create(set, candidate, collisionCount);
    update = created.revision;
    collisionCount = created.collisionCount;
  }
  const all = revisions.filter((r) => r.metadata?.name !== update.metadata?.name);
  all.push(update);
  const current = all.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
  return { current, update, collisionCount, all: sortControllerRevisions(all) };
}

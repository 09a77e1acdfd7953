import type { Deployment, ReplicaSet } from '@svc/api';
import type { LabelQuery } from '@svc/machinery';
import { getControllerOf } from '@svc/runtime';

/** What claiming does with each candidate ReplicaSet (Kubernetes' ControllerRefManager). */
export interface ClaimPlan {
  /** Controlled by the Deployment and selected: its ReplicaSets. */
  owned: ReplicaSet[];
  /** Orphans the selector matches: to be adopted (then owned). */
  adopt: ReplicaSet[];
  /** Controlled by the Deployment but no longer selected: to be released. */
  release: ReplicaSet[];
}

/**
 * Sorts candidates (the ReplicaSets the Deployment controls, and the orphans of its namespace)
 * into owned, to adopt and to release. A ReplicaSet another controller controls is never touched;
 * a Deployment being deleted neither adopts nor releases; an orphan being deleted is not adopted.
 */
export function planReplicaSetClaims(d: Deployment, candidates: readonly ReplicaSet[], selector: LabelQuery): ClaimPlan {
  const plan: ClaimPlan = { owned: [], adopt: [], release: [] };
  const uid = d.metadata?.uid;
  const deleting = Boolean(d.metadata?.deletionTimestamp);
  for (const rs of candidates) {
    const controller = getControllerOf(rs);
    const selected = selector.matches(rs.metadata?.labels ?? {});
    if (controller) {
      if (controller.uid !== uid) continue;
      if (selected) plan.owned.push(rs);
      else if (!deleting) plan.release.push(rs);
      continue;
    }
    if (deleting || !selected || rs.metadata?.deletionTimestamp || rs.metadata?.namespace !== d.metadata?.namespace) continue;
    plan.adopt.push(rs);
  }
  return plan;
}

import type { ReplicaSet } from '@svc/api';
import { LabelQuery } from '@svc/machinery';

/** A controller with a pod selector (a ReplicaSet, a DaemonSet, ...). */
export type SelectingController = { spec?: Pick<ReplicaSet['spec'], 'selector'> };

// Cached objects are frozen and replaced on every change, so the object itself keys its parsed selector.
const parsed = new WeakMap<SelectingController, LabelQuery | null>();

/**
 * The ReplicaSet's pod selector, parsed once per cached object; undefined when it cannot be parsed
 * (such a ReplicaSet selects nothing and is left alone, as Kubernetes does).
 */
export function replicaSetSelector(rs: SelectingController): LabelQuery | undefined {
  let query = parsed.get(rs);
  if (query === undefined) {
    try {
      query = LabelQuery.fromLabelSelector(rs.spec?.selector);
    } catch {
      query = null;
    }
    parsed.set(rs, query);
  }
  return query ?? undefined;
}

import type { ReplicaSet } from '@svc/api';
import { LabelQuery } from '@svc/machinery';

/** A controller with a pod selector (a ReplicaSet, a DaemonSet, ...). */
export type SelectingController = { spec?: Pick<ReplicaSet['spec'], 'selector'> };

// Cached objects are frozen and replaced on every change, so the object itself keys its parsed selector.
const parsed = new WeakMap<SelectingController, LabelQuery | null>();

/**
 * A controller's pod selector (a ReplicaSet's, a DaemonSet's, ...), parsed once per cached object;
 * undefined when it cannot be parsed (such a controller selects nothing and is left alone, as
 * Kubernetes does).
 */
export function controllerSelector(rs: SelectingController): LabelQuery | undefined {
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

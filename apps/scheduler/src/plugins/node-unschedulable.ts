import { taintTolerated, TAINT_NODE_UNSCHEDULABLE } from '@svc/api';
import type { FilterPlugin } from '../framework/plugin';

export const ERR_NODE_UNSCHEDULABLE = 'node(s) were unschedulable';

/** A cordoned node (`spec.unschedulable`) takes only pods that tolerate `node.kubernetes.io/unschedulable:NoSchedule`. */
export const nodeUnschedulable: FilterPlugin = {
  name: 'NodeUnschedulable',
  filter(state, node) {
    if (!node.node?.spec?.unschedulable) return undefined;
    return taintTolerated({ key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' }, state.pod.pod.spec.tolerations) ? undefined : ERR_NODE_UNSCHEDULABLE;
  },
  // No eviction changes the node itself.
  unresolvable: () => true,
  curedBy: (e) => e.resource === 'Node' && (e.action === 'Add' || e.changes.has('unschedulable') || e.changes.has('taint')),
};

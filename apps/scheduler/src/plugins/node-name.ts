import type { FilterPlugin } from '../framework/plugin';

export const ERR_NODE_NAME = "node(s) didn't match the requested node name";

/** A pod that names its node fits that node only. */
export const nodeName: FilterPlugin = {
  name: 'NodeName',
  filter(state, node) {
    const wanted = state.pod.pod.spec.nodeName;
    return wanted && wanted !== node.name ? ERR_NODE_NAME : undefined;
  },
  // No eviction changes the node itself.
  unresolvable: () => true,
  curedBy: (e) => e.resource === 'Node' && e.action === 'Add',
};

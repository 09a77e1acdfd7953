import type { FilterPlugin } from '../framework/plugin';

export const ERR_NODE_PORTS = "node(s) didn't have free ports for the requested pod ports";

/** A pod's host ports must be free on the node (same protocol and port, on the same IP or on 0.0.0.0). */
export const nodePorts: FilterPlugin = {
  name: 'NodePorts',
  filter(state, node) {
    for (const port of state.pod.hostPorts) if (node.portConflict(port)) return ERR_NODE_PORTS;
    return undefined;
  },
  curedBy: (e) => (e.resource === 'Node' && e.action === 'Add') || (e.resource === 'AssignedPod' && e.action === 'Delete'),
};

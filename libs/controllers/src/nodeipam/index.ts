import type { ControllerDescriptor } from '../controller-descriptor';
import { NodeIpamOptions } from './node-ipam-options';
import { NodeIpamReconciler } from './node-ipam-reconciler';

/** Gives each Node a pod CIDR of the cluster's range (`--allocate-node-cidrs`). */
export const nodeIpamController: ControllerDescriptor = {
  name: 'nodeipam',
  reconcilers: [NodeIpamReconciler],
  options: (flags) => [NodeIpamOptions.fromFlags(flags)],
  concurrency: () => ({ nodeipam: 1 }),
  enabled: (flags) => flags.allocateNodeCidrs === true,
};

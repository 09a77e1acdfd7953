import type { BuiltInController } from '../built-in-controller';
import { NodeIpamReconciler } from './node-ipam-reconciler';

/** Gives each Node a pod CIDR of the cluster's range (`--allocate-node-cidrs`). */
export const nodeIpamController: BuiltInController = {
  name: 'nodeipam',
  providers: [NodeIpamReconciler],
  concurrency: () => ({ nodeipam: 1 }),
  enabled: (o) => o.allocateNodeCidrs === true,
};

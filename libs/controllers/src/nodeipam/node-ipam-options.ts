import { parseDualStackCidrs, type Cidr, type ControllerManagerOptions } from '@svc/options';

/** What the node IPAM controller takes from the flags. */
export class NodeIpamOptions {
  constructor(
    /** The IPv4 `--cluster-cidr` node CIDRs are carved from; none: the controller does nothing. */
    readonly clusterCidr: Cidr | undefined,
    /** `--node-cidr-mask-size` (or its IPv4 form): the size of each node's range. */
    readonly maskSize = 24,
  ) {}

  static fromFlags(flags: ControllerManagerOptions): NodeIpamOptions {
    // The flag rules make sure of one IPv4 --cluster-cidr with --allocate-node-cidrs; without them the controller does nothing.
    const [cidr] = flags.allocateNodeCidrs && flags.clusterCidr ? parseDualStackCidrs(flags.clusterCidr) : [];
    return new NodeIpamOptions(cidr?.family === 'IPv4' ? cidr : undefined, flags.nodeCidrMaskSize ?? flags.nodeCidrMaskSizeIpv4 ?? 24);
  }
}

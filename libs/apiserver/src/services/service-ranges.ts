import { formatPortRange, parseCidr, parseDualStackCidrs, type PortRange } from '@svc/options';
import type { Storage } from '@svc/storage';
import { AllocationStore, type AllocationRange } from './allocation-store';
import { IpRange } from './ip-range';
import type { ServiceAllocators } from './service-allocation';

/** Kubernetes' default `--service-cluster-ip-range` when none is given. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
/** Kubernetes' default `--service-node-port-range`. */
export const DEFAULT_SERVICE_NODE_PORT_RANGE: PortRange = { base: 30000, size: 2768 };

function ipAllocationRange(range: IpRange): AllocationRange {
  return {
    size: range.size,
    at: (offset) => range.at(offset),
    offsetOf: (value) => range.offsetOf(value),
    notInRangeMessage: (value) => `the provided IP (${value}) is not in the valid range. The range of valid IPs is ${range.text}`,
  };
}

function portAllocationRange(range: PortRange): AllocationRange {
  return {
    size: range.size,
    at: (offset) => String(range.base + offset),
    offsetOf: (value) => {
      const port = Number(value);
      return Number.isInteger(port) && port >= range.base && port < range.base + range.size ? port - range.base : undefined;
    },
    notInRangeMessage: () => `provided port is not in the valid range. The range of valid ports is ${formatPortRange(range)}`,
  };
}

/** The cluster IP ranges of `--service-cluster-ip-range` (Kubernetes' default when empty), primary first. */
export function serviceIpRanges(serviceClusterIpRange: string | undefined): IpRange[] {
  const text = serviceClusterIpRange?.trim() || DEFAULT_SERVICE_CLUSTER_IP_RANGE;
  return (text.includes(',') ? parseDualStackCidrs(text) : [parseCidr(text)]).map((cidr) => new IpRange(cidr));
}

/** The allocators of Services over `storage`, one record per value. */
export function serviceAllocators(storage: Storage, storePrefix: string, ipRanges: readonly IpRange[], nodePortRange: PortRange): ServiceAllocators {
  return {
    ips: ipRanges.map(
      (range) => new AllocationStore(storage, storePrefix, `serviceipallocations-${range.family.toLowerCase()}`, 'IP', ipAllocationRange(range)),
    ),
    families: ipRanges.map((range) => range.family),
    nodePorts: new AllocationStore(storage, storePrefix, 'servicenodeportallocations', 'port', portAllocationRange(nodePortRange)),
  };
}

import type { Cidr } from '@svc/options';

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function numberToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/**
 * Kubernetes' range allocator for one IPv4 cluster CIDR: node CIDRs of `maskSize` bits carved from
 * it in order, the lowest free one first. What is taken is given each time (the nodes' podCIDRs), so
 * the allocator holds no state of its own to lose.
 */
export class NodeCidrAllocator {
  private readonly base: number;
  private readonly count: number;
  private readonly blockSize: number;

  constructor(
    readonly cluster: Cidr,
    readonly maskSize: number,
  ) {
    if (cluster.family !== 'IPv4') throw new Error(`node CIDRs are allocated from IPv4 cluster CIDRs only, not ${cluster.text}`);
    if (maskSize < cluster.prefixLength || maskSize > 32) throw new Error(`mask size ${maskSize} does not fit the cluster CIDR ${cluster.text}`);
    const clusterSize = 2 ** (32 - cluster.prefixLength);
    this.base = ipv4ToNumber(cluster.address) - (ipv4ToNumber(cluster.address) % clusterSize);
    this.blockSize = 2 ** (32 - maskSize);
    this.count = clusterSize / this.blockSize;
  }

  /** The index of `cidr` in the cluster range, or undefined when it is not one of its node CIDRs. */
  indexOf(cidr: string): number | undefined {
    const [address, prefix] = cidr.split('/');
    if (Number(prefix) !== this.maskSize || !/^\d+\.\d+\.\d+\.\d+$/.test(address ?? '')) return undefined;
    const offset = ipv4ToNumber(address) - this.base;
    if (offset < 0 || offset % this.blockSize !== 0 || offset / this.blockSize >= this.count) return undefined;
    return offset / this.blockSize;
  }

  /** The lowest node CIDR not in `taken`, or undefined when the range is full. */
  next(taken: Iterable<string>): string | undefined {
    const used = new Set<number>();
    for (const cidr of taken) {
      const index = this.indexOf(cidr);
      if (index !== undefined) used.add(index);
    }
    for (let i = 0; i < this.count; i++) if (!used.has(i)) return `${numberToIpv4(this.base + i * this.blockSize)}/${this.maskSize}`;
    return undefined;
  }
}

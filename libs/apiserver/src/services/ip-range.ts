import { isIPv4, isIPv6 } from 'node:net';
import type { Cidr, IpFamily } from '@svc/options';

/** The largest service range Kubernetes accepts: 2^20 addresses (an IPv4 /12, an IPv6 /108). */
const MAX_RANGE_BITS = 20;

/** An IP address as a number: 32 bits for IPv4, 128 for IPv6. */
export function ipToBigInt(ip: string): bigint | undefined {
  if (isIPv4(ip)) return ip.split('.').reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n);
  if (!isIPv6(ip) || ip.includes('%')) return undefined;
  let text = ip;
  // An embedded IPv4 tail (`::ffff:10.0.0.1`) is two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipToBigInt(dotted[1])!;
    text = `${text.slice(0, -dotted[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  return groups.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** The canonical text of an address (IPv6 compressed as Go prints it). */
export function bigIntToIp(value: bigint, family: IpFamily): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((value >> BigInt((7 - i) * 16)) & 0xffffn).toString(16));
  // The longest run of two or more zero groups becomes `::`.
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  if (best.length < 2) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

/** The family of an address, or undefined when it is none. */
export function ipFamilyOf(ip: string): IpFamily | undefined {
  return isIPv4(ip) ? 'IPv4' : isIPv6(ip) && !ip.includes('%') ? 'IPv6' : undefined;
}

/**
 * The addresses of a service range that can be handed out: Kubernetes' allocator leaves out the
 * network address, and for IPv4 the broadcast address too. Offsets count from the first usable one.
 */
export class IpRange {
  readonly family: IpFamily;
  readonly text: string;
  private readonly base: bigint;
  private readonly network: bigint;
  private readonly last: bigint;
  /** How many addresses can be handed out. */
  readonly size: number;

  constructor(cidr: Cidr) {
    this.family = cidr.family;
    this.text = cidr.text;
    const bits = (cidr.family === 'IPv4' ? 32 : 128) - cidr.prefixLength;
    if (bits > MAX_RANGE_BITS) {
      throw new Error(
        `specified --service-cluster-ip-range ${cidr.text} is too large; for ${cidr.family === 'IPv4' ? 32 : 128}-bit addresses, the mask must be >= ${(cidr.family === 'IPv4' ? 32 : 128) - MAX_RANGE_BITS}`,
      );
    }
    if (bits < 2) throw new Error(`specified --service-cluster-ip-range ${cidr.text} is too small: it holds no address to hand out`);
    const address = ipToBigInt(cidr.address)!;
    const mask = ((1n << BigInt(bits)) - 1n) ^ -1n;
    this.network = address & mask;
    this.base = this.network + 1n;
    this.last = this.network + (1n << BigInt(bits)) - (cidr.family === 'IPv4' ? 2n : 1n);
    this.size = Number(this.last - this.base + 1n);
  }

  /** The network address text as the range was given (`10.0.0.0/24`). */
  toString(): string {
    return this.text;
  }

  contains(ip: string): boolean {
    if (ipFamilyOf(ip) !== this.family) return false;
    const value = ipToBigInt(ip)!;
    return value >= this.base && value <= this.last;
  }

  /** The offset of an address in the range; undefined when it is not in it. */
  offsetOf(ip: string): number | undefined {
    return this.contains(ip) ? Number(ipToBigInt(ip)! - this.base) : undefined;
  }

  at(offset: number): string {
    return bigIntToIp(this.base + BigInt(offset), this.family);
  }
}

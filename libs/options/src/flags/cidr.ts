import { isIPv4, isIPv6 } from 'node:net';

export type IpFamily = 'IPv4' | 'IPv6';

/** A parsed `address/prefix` in the style of Go's net.ParseCIDR. */
export interface Cidr {
  text: string;
  address: string;
  prefixLength: number;
  family: IpFamily;
}

/** Parses `address/prefix` (IPv4 prefix 0..32, IPv6 0..128) and throws `invalid CIDR address: <text>`. */
export function parseCidr(text: string): Cidr {
  const slash = text.indexOf('/');
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  const family: IpFamily | undefined = isIPv4(address) ? 'IPv4' : isIPv6(address) && !address.includes('%') ? 'IPv6' : undefined;
  const prefixLength = Number(prefix);
  if (slash === -1 || !family || !/^\d{1,3}$/.test(prefix) || prefixLength > (family === 'IPv4' ? 32 : 128)) {
    throw new Error(`invalid CIDR address: ${text}`);
  }
  return { text, address, prefixLength, family };
}

/**
 * Comma-separated CIDRs for one cluster: at most two, and two only when one is IPv4 and the other
 * IPv6 (dual stack), as Kubernetes requires of service and pod ranges.
 */
export function parseDualStackCidrs(text: string): Cidr[] {
  const cidrs = text.split(',').map((s) => parseCidr(s.trim()));
  if (cidrs.length > 2) throw new Error('at most two CIDRs may be given, one IPv4 and one IPv6');
  if (cidrs.length === 2 && cidrs[0].family === cidrs[1].family) {
    throw new Error('two CIDRs must be one IPv4 and one IPv6 (dual stack)');
  }
  return cidrs;
}

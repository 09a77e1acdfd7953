import type { IpFamily } from '@svc/options';
import ipaddr from 'ipaddr.js';

export type { IpFamily };

/** The family of an address, or undefined when it is not one. */
export function ipFamilyOf(text: string): IpFamily | undefined {
  if (!ipaddr.isValid(text)) return undefined;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return /^\d+\.\d+\.\d+\.\d+$/.test(text) ? 'IPv4' : undefined;
  return (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? undefined : 'IPv6';
}

/** The canonical text of an address (IPv6 compressed, lower case), as nft prints it back. */
export function canonicalIp(text: string): string {
  return ipaddr.parse(text).toString();
}

/** The family of a CIDR, or undefined when it is not one. */
export function cidrFamilyOf(text: string): IpFamily | undefined {
  if (!ipaddr.isValidCIDR(text)) return undefined;
  return ipFamilyOf(text.slice(0, text.indexOf('/')));
}

/** The CIDR with its host bits cleared (`10.1.2.3/8` -> `10.0.0.0/8`), as nft wants it. */
export function canonicalCidr(text: string): string {
  const [address, prefix] = ipaddr.parseCIDR(text);
  const network = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(text) : ipaddr.IPv6.networkAddressFromCIDR(text);
  return `${network.toString()}/${prefix}`;
}

/** Whether `ip` lies in `cidr` (both of one family; false across families). */
export function cidrContains(cidr: string, ip: string): boolean {
  const range = ipaddr.parseCIDR(cidr);
  const address = ipaddr.parse(ip);
  return range[0].kind() === address.kind() && address.match(range);
}

export function isLoopback(ip: string): boolean {
  return ipaddr.parse(ip).range() === 'loopback';
}

/** `ip:port`, with brackets around an IPv6 address. */
export function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

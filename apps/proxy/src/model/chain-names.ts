import { createHash } from 'node:crypto';
import type { EndpointInfo } from './endpoints';
import type { ServicePortInfo } from './service-port';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The first `chars` characters of the RFC 4648 base32 text of `bytes`. */
function base32(bytes: Buffer, chars: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= chars) break;
  }
  return out;
}

/** The hash prefix kube-proxy gives its chain names: base32 of the SHA-256 of `text`, `chars` long. */
export function nameHash(text: string, chars: number): string {
  return base32(createHash('sha256').update(text).digest(), chars);
}

// nftables names may hold 256 bytes; the longest prefix used is 16 characters.
const NAME_BASE_MAX = 240;

/** `HASH-text`, cut to fit: the hash keeps names unique when cut and tells similar names apart. */
function hashAndTruncate(text: string): string {
  const name = `${nameHash(text, 8)}-${text}`;
  return name.length > NAME_BASE_MAX ? `${name.slice(0, NAME_BASE_MAX - 3)}...` : name;
}

/** `HASH-namespace/name/protocol/portName`: the part of a service port's chain names after the prefix. */
export function servicePortNameBase(info: ServicePortInfo): string {
  return hashAndTruncate(`${info.namespace}/${info.name}/${info.protocol.toLowerCase()}/${info.portName}`);
}

/** `HASH-namespace/name/protocol/portName__ip/port` (colons of IPv6 as dots: nft names hold none). */
export function endpointNameBase(info: ServicePortInfo, endpoint: EndpointInfo): string {
  const ip = endpoint.ip.replaceAll(':', '.');
  return hashAndTruncate(`${info.namespace}/${info.name}/${info.protocol.toLowerCase()}/${info.portName}__${ip}/${endpoint.port}`);
}

/** Chain names hold a slash only when they belong to a service port; the fixed chains hold none. */
export function isServiceChainName(name: string): boolean {
  return name.includes('/');
}

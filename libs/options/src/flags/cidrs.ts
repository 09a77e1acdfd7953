import { parseCidr } from './cidr';
import type { FlagType } from './flag-type';

/** `cidrs`: comma-separated IPv4 or IPv6 CIDRs, each validated; repeatable, appending. */
export const cidrs: FlagType<string[]> = {
  name: 'cidrs',
  requiresValue: true,
  parse: (raw, previous) => [
    ...(previous ?? []),
    ...raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s) => parseCidr(s).text),
  ],
  format: (value) => value.join(','),
};

import { duration } from '../flags/duration';
import { int32 } from '../flags/int';
import { string } from '../flags/string';
import { flag, type CheckResult } from '../flag-set/flag';
import { defineFlagSet, flagTable, helpFlag, versionFlag, type OptionsOf } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import { atLeast, between, durationAbove, ipAddress } from './checks';
import { clientFlags, LOG_FLAGS } from './common-flags';

const PROGRAM = 'svc-dns';

/** A DNS name of labels of letters, digits and hyphens (RFC 1123), without a trailing dot. */
const domainName = (value: string): CheckResult =>
  value.length <= 253 && /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(value)
    ? undefined
    : 'must be a lower-case DNS name such as cluster.local (no trailing dot)';

/**
 * The cluster DNS server's flag table: the zone it is authoritative for (the node agents'
 * `clusterDomain`), where it listens, and where other names go (the host's resolvers).
 */
export const DNS_FLAGS = flagTable({
  program: PROGRAM,
  description:
    "The cluster DNS server answers the names of Kubernetes' DNS specification (Services, their endpoints and ports,\n" +
    "pods, reverse lookups) from the API server's Services and EndpointSlices, over UDP and TCP; other names are\n" +
    "forwarded to the host's resolvers.",
  groups: [
    {
      title: 'Generic',
      flags: [helpFlag(PROGRAM), versionFlag()],
    },
    {
      title: 'Serving',
      flags: [
        flag({ name: 'bind-address', type: string, default: '0.0.0.0', help: 'the address to serve DNS on (UDP and TCP)', check: ipAddress }),
        flag({ name: 'port', type: int32, default: 53, help: 'the port to serve DNS on (UDP and TCP); 0 picks a free one', check: between(0, 65535) }),
        flag({
          name: 'cluster-domain',
          type: string,
          default: 'cluster.local',
          help: "the zone this server is authoritative for (the node agents' clusterDomain)",
          check: domainName,
        }),
        flag({ name: 'ttl', type: int32, default: 5, help: 'the TTL in seconds of the records it answers from the cluster', check: between(0, 3600) }),
        flag({
          name: 'resolv-conf',
          type: string,
          default: '/etc/resolv.conf',
          help: 'the resolver configuration whose nameservers get the names outside the zone; empty answers them REFUSED',
        }),
        flag({
          name: 'upstream-timeout',
          type: duration,
          default: 2_000,
          help: 'how long a forwarded query waits for each upstream server',
          check: durationAbove(0),
        }),
        flag({
          name: 'max-tcp-connections',
          type: int32,
          default: 1000,
          help: 'TCP connections served at once; more are closed as they arrive',
          check: atLeast(1),
        }),
      ],
    },
    { title: 'Client', flags: clientFlags(5, 10) },
    { title: 'Logs', flags: [...LOG_FLAGS] },
  ],
});

/** The cluster DNS server's parsed options; durations in milliseconds. */
export interface DnsOptions extends OptionsOf<typeof DNS_FLAGS> {}

export const dnsFlagSet = defineFlagSet(DNS_FLAGS, []);

/** Parses the cluster DNS server's argv (without node and script). Throws FlagError with a one-line message. */
export function parseDnsOptions(argv: readonly string[]): ParseOutcome<DnsOptions> {
  return parseFlagSet(dnsFlagSet, argv);
}

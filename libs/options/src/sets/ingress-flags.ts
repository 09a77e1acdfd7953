import { duration } from '../flags/duration';
import { int32 } from '../flags/int';
import { string } from '../flags/string';
import { flag, type CheckResult } from '../flag-set/flag';
import { defineFlagSet, flagTable, helpFlag, versionFlag, type OptionsOf } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import { between, durationAbove, ipAddress, ipAddressOrBlank } from './checks';
import { clientFlags, LOG_FLAGS } from './common-flags';

const PROGRAM = 'svc-ingress';

/** A domain-prefixed path, as an IngressClass's controller is. */
const domainPrefixedPath = (value: string): CheckResult =>
  /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(value) ? undefined : 'must be a domain-prefixed path such as svc.io/ingress';

/**
 * The ingress controller's flag table: which IngressClasses are its own (by controller name), where it
 * listens, the address it reports in the Ingresses' status, and the bounds of what it accepts.
 */
export const INGRESS_FLAGS = flagTable({
  program: PROGRAM,
  description:
    'The ingress controller serves the Ingresses of its IngressClasses (those naming its controller) over HTTP and\n' +
    "HTTPS: it matches each request's host and path to a rule, proxies it to a ready endpoint of the rule's Service,\n" +
    "serves TLS with the certificates of the Ingresses' Secrets by server name, and reports its address in their status.",
  groups: [
    { title: 'Generic', flags: [helpFlag(PROGRAM), versionFlag()] },
    {
      title: 'Serving',
      flags: [
        flag({ name: 'bind-address', type: string, default: '0.0.0.0', help: 'the address to serve HTTP and HTTPS on', check: ipAddress }),
        flag({ name: 'http-port', type: int32, default: 80, help: 'the port to serve HTTP on; 0 picks a free one', check: between(0, 65535) }),
        flag({
          name: 'https-port',
          type: int32,
          default: 443,
          help: 'the port to serve HTTPS on; 0 picks a free one, -1 serves no HTTPS',
          check: between(-1, 65535),
        }),
        flag({
          name: 'publish-address',
          type: string,
          default: '',
          help: "the IP written to the Ingresses' status.loadBalancer.ingress; empty: the bind address, or the host's first IPv4 address when that is 0.0.0.0",
          check: ipAddressOrBlank,
        }),
        flag({
          name: 'controller-name',
          type: string,
          default: 'svc.io/ingress',
          help: 'the controller an IngressClass names (spec.controller) for its Ingresses to be served here',
          check: domainPrefixedPath,
        }),
        flag({
          name: 'watch-ingress-without-class',
          type: string,
          default: 'default',
          help: 'Ingresses of no class: "default" serves them when one of its classes is the default class, "always" or "never"',
          check: (v: string) => (['default', 'always', 'never'].includes(v) ? undefined : 'must be default, always or never'),
        }),
        flag({
          name: 'max-header-size',
          type: int32,
          default: 16 * 1024,
          help: "the most bytes of a request's head (request line and headers); larger ones are answered 431",
          check: between(1024, 1024 * 1024),
        }),
        flag({
          name: 'upstream-timeout',
          type: duration,
          default: 60_000,
          help: 'how long a proxied request waits for its endpoint to answer (504 after)',
          check: durationAbove(0),
        }),
        flag({
          name: 'request-timeout',
          type: duration,
          default: 300_000,
          help: 'how long a whole request may take, body included (408 after)',
          check: durationAbove(0),
        }),
      ],
    },
    { title: 'Client', flags: clientFlags(5, 10) },
    { title: 'Logs', flags: [...LOG_FLAGS] },
  ],
});

/** The ingress controller's parsed options; durations in milliseconds. */
export interface IngressOptions extends OptionsOf<typeof INGRESS_FLAGS> {}

export const ingressFlagSet = defineFlagSet(INGRESS_FLAGS, []);

/** Parses the ingress controller's argv (without node and script). Throws FlagError with a one-line message. */
export function parseIngressOptions(argv: readonly string[]): ParseOutcome<IngressOptions> {
  return parseFlagSet(ingressFlagSet, argv);
}

import { bool } from '../flags/bool';
import { duration, formatDuration } from '../flags/duration';
import { int } from '../flags/int';
import { string } from '../flags/string';
import { strings } from '../flags/strings';
import { flag } from '../flag-set/flag';
import { defineFlagSet, flagTable, helpFlag, versionFlag, type OptionsOf, type Rule } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import { between, durationAbove, eachEntry } from './checks';
import { clientFlags, CLIENT_CA_FLAG, LOG_FLAGS, SHARED_SERVING_FLAGS } from './common-flags';
import { givenTogether } from './shared-rules';

const PROGRAM = 'svc-metrics-server';

/** Node address types, in metrics-server's default order of preference. */
export const METRICS_SERVER_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'] as const;

/**
 * The metrics server's flag table: metrics-server's own flags (the scrape resolution, how node agents
 * are reached and trusted) and a Kubernetes extension API server's secure serving and delegated
 * authentication and authorization, under the same names.
 */
export const METRICS_SERVER_FLAGS = flagTable({
  program: PROGRAM,
  description:
    'The metrics server serves the resource metrics API (metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics) that\n' +
    "`kubectl top` and the horizontal pod autoscaler read, through the API server's aggregation: it scrapes each\n" +
    "node agent's /metrics/resource every --metric-resolution and answers the CPU rate between the last two scrapes\n" +
    'and the last memory working set.',
  groups: [
    { title: 'Generic', flags: [helpFlag(PROGRAM), versionFlag()] },
    {
      title: 'Metrics server',
      flags: [
        flag({
          name: 'metric-resolution',
          type: duration,
          default: 15_000,
          help: 'how often node agents are scraped (and so the window CPU rates are taken over); at least 10s',
        }),
        flag({ name: 'node-selector', shorthand: 'l', type: string, help: 'only nodes matching this label selector are scraped (key1=value1,key2!=value2)' }),
      ],
    },
    {
      title: 'Node agent client',
      flags: [
        flag({ name: 'kubelet-port', type: int, default: 10250, help: 'the port node agents are reached on', check: between(1, 65535) }),
        flag({ name: 'kubelet-use-node-status-port', type: bool, help: "the port in each Node's status (daemonEndpoints) rather than --kubelet-port" }),
        flag({
          name: 'kubelet-preferred-address-types',
          type: strings,
          default: [...METRICS_SERVER_ADDRESS_TYPES],
          help: 'the Node address types tried, in order, to reach a node agent',
          check: eachEntry((entry) =>
            (METRICS_SERVER_ADDRESS_TYPES as readonly string[]).includes(entry) ? undefined : `must be one of ${METRICS_SERVER_ADDRESS_TYPES.join(', ')}`,
          ),
        }),
        flag({ name: 'kubelet-insecure-tls', type: bool, help: "do not verify the node agents' serving certificates (for testing only)" }),
        flag({ name: 'kubelet-certificate-authority', type: string, help: "CA that verifies the node agents' serving certificates" }),
        flag({ name: 'kubelet-client-certificate', type: string, help: 'client certificate presented to node agents' }),
        flag({ name: 'kubelet-client-key', type: string, help: 'key of --kubelet-client-certificate' }),
        flag({
          name: 'kubelet-request-timeout',
          type: duration,
          default: 10_000,
          help: 'how long one scrape of a node agent may take',
          check: durationAbove(0),
        }),
      ],
    },
    { title: 'Client', flags: clientFlags(50, 100) },
    {
      title: 'Secure serving',
      flags: [
        ...SHARED_SERVING_FLAGS,
        flag({
          name: 'cert-dir',
          type: string,
          help: 'directory of the self-signed serving pair (`svc-metrics-server.crt`/`.key`) when no pair is given; empty keeps it in memory',
        }),
        flag({ name: 'secure-port', type: int, default: 4443, help: 'HTTPS port of the metrics API; 0 picks a free one', check: between(0, 65535) }),
      ],
    },
    {
      title: 'Authentication',
      flags: [
        flag({
          name: 'authentication-svcconfig',
          type: string,
          help: 'config able to create token reviews and read the front proxy settings; default: --svcconfig',
        }),
        flag({ name: 'authentication-skip-lookup', type: bool, help: 'if false, missing front proxy and client CA settings are read from the cluster' }),
        flag({ name: 'authentication-token-webhook-cache-ttl', type: duration, default: 10_000, help: 'how long token review answers are cached' }),
        flag({ name: 'authentication-tolerate-lookup-failure', type: bool, help: 'a failed lookup of the cluster settings is not fatal' }),
        CLIENT_CA_FLAG,
        flag({ name: 'requestheader-client-ca-file', type: string, help: 'CA that verifies the front proxy before its identity headers are trusted' }),
        flag({ name: 'requestheader-allowed-names', type: strings, help: "front proxy certificates' allowed common names; empty allows any" }),
        flag({ name: 'requestheader-username-headers', type: strings, default: ['x-remote-user'], help: 'request headers to inspect for the user name' }),
        flag({ name: 'requestheader-group-headers', type: strings, default: ['x-remote-group'], help: 'request headers to inspect for groups' }),
        flag({
          name: 'requestheader-extra-headers-prefix',
          type: strings,
          default: ['x-remote-extra-'],
          help: 'request header prefixes to inspect for extra user information',
        }),
      ],
    },
    {
      title: 'Authorization',
      flags: [
        flag({ name: 'authorization-svcconfig', type: string, help: 'config able to create access reviews; default: --svcconfig' }),
        flag({
          name: 'authorization-always-allow-paths',
          type: strings,
          default: ['/healthz', '/readyz', '/livez'],
          help: 'paths authorized without asking the core server',
        }),
        flag({ name: 'authorization-webhook-cache-authorized-ttl', type: duration, default: 10_000, help: 'how long authorized answers are cached' }),
        flag({ name: 'authorization-webhook-cache-unauthorized-ttl', type: duration, default: 10_000, help: 'how long unauthorized answers are cached' }),
      ],
    },
    { title: 'Logs', flags: [...LOG_FLAGS] },
  ],
});

/** The metrics server's parsed options; durations in milliseconds. */
export interface MetricsServerOptions extends OptionsOf<typeof METRICS_SERVER_FLAGS> {}

type MetricsServerRule = Rule<MetricsServerOptions>;

/** metrics-server's own checks, with its messages. */
const resolution: MetricsServerRule = (o) => {
  if (o.metricResolution < 10_000)
    return {
      flag: 'metric-resolution',
      reason: `metric-resolution should be a time duration at least 10s, but value ${formatDuration(o.metricResolution)} provided`,
    };
  if ((o.metricResolution * 9) / 10 < o.kubeletRequestTimeout)
    return {
      flag: 'kubelet-request-timeout',
      reason: `metric-resolution should be larger than kubelet-request-timeout, but metric-resolution value ${formatDuration(o.metricResolution)} kubelet-request-timeout value ${formatDuration(o.kubeletRequestTimeout)} provided`,
    };
  return undefined;
};

const kubeletTls: MetricsServerRule = (o) =>
  o.kubeletCertificateAuthority && o.kubeletInsecureTls
    ? { flag: 'kubelet-insecure-tls', reason: 'cannot use both --kubelet-certificate-authority and --kubelet-insecure-tls' }
    : undefined;

export const metricsServerFlagSet = defineFlagSet(METRICS_SERVER_FLAGS, [
  givenTogether('tls-cert-file', 'tls-private-key-file'),
  givenTogether('kubelet-client-certificate', 'kubelet-client-key'),
  resolution,
  kubeletTls,
]);

/** Parses the metrics server's argv (without node and script). Throws FlagError with a one-line message. */
export function parseMetricsServerOptions(argv: readonly string[]): ParseOutcome<MetricsServerOptions> {
  return parseFlagSet(metricsServerFlagSet, argv);
}

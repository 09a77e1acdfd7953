import { errorMessage } from '@svc/machinery';
import { bool } from '../flags/bool';
import { cidrs } from '../flags/cidrs';
import { duration } from '../flags/duration';
import { float } from '../flags/float';
import { int } from '../flags/int';
import { int32 } from '../flags/int';
import { mapStringBool } from '../flags/key-value-pairs';
import { moduleSpec } from '../flags/module-spec';
import { namedCertKey } from '../flags/named-cert-key';
import { oneOf, string } from '../flags/string';
import { strings, stringsOf } from '../flags/strings';
import { stringToString } from '../flags/string-to-string';
import { flag } from '../flag-set/flag';
import { atLeast, durationAbove, eachEntry, ipAddressOrBlank, nonEmpty } from './checks';
import { TLS_CIPHER_SUITES } from './tls-cipher-suites';

/** Flags both processes declare with the same type, default and meaning. */

export const LOG_FLAGS = [
  flag({ name: 'log-flush-frequency', type: duration, default: 5_000, help: 'maximum time between log flushes' }),
  flag({ name: 'logging-format', type: oneOf(['text']), default: 'text', help: 'log format; only `text` is permitted' }),
  flag({ name: 'v', shorthand: 'v', type: int32, help: 'log verbosity', check: atLeast(0) }),
  flag({ name: 'vmodule', type: moduleSpec, help: 'per-file log verbosity (text format), as comma-separated pattern=N' }),
];

export const METRICS_FLAGS = [
  flag({
    name: 'allow-metric-labels',
    type: stringToString,
    default: {},
    help: 'allow-list of metric label values; key `<MetricName>,<LabelName>`, value a comma list',
    check: (labels: Record<string, string>) => {
      const bad = Object.keys(labels).find((k) => !/^[a-zA-Z_:][a-zA-Z0-9_:]*,[a-zA-Z_][a-zA-Z0-9_]*$/.test(k));
      return bad === undefined ? undefined : { value: bad, reason: 'key must be <MetricName>,<LabelName>' };
    },
  }),
  flag({ name: 'disabled-metrics', type: strings, help: 'fully qualified names of metrics to disable; wins over showing hidden metrics' }),
  flag({
    name: 'show-hidden-metrics-for-version',
    type: string,
    help: '`<major>.<minor>` of the previous release whose hidden metrics are shown',
    check: (v: string) => (v === '' || /^\d+\.\d+$/.test(v) ? undefined : 'must be <major>.<minor>, for example 1.16'),
  }),
];

/** A feature gate a process implements: its default and Kubernetes' stage for it. */
export interface FeatureGate {
  default: boolean;
  stage: 'Alpha' | 'Beta' | 'GA';
  /** What turning it off (or on) changes, for `--help`. */
  what: string;
}

/**
 * `--feature-gates` of a process that implements `gates`. A gate it does not implement is refused
 * (Kubernetes' "unrecognized feature gate"): accepting it would change nothing.
 */
export function featureGatesFlag(gates: Readonly<Record<string, FeatureGate>>) {
  const names = Object.keys(gates).sort();
  const listed = names.map((name) => `${name}=true|false (${gates[name].stage} - default=${gates[name].default}: ${gates[name].what})`).join('; ');
  return flag({
    name: 'feature-gates',
    type: mapStringBool,
    help: `feature gates as comma-separated name=true|false pairs. ${names.length > 0 ? `Known: ${listed}` : 'This process has none.'}`,
    check: (value: Record<string, boolean>) => {
      const unknown = Object.keys(value).find((name) => !Object.hasOwn(gates, name));
      if (unknown === undefined) return undefined;
      return `unrecognized feature gate: ${unknown}${names.length > 0 ? ` (known: ${names.join(', ')})` : ' (this process has none)'}`;
    },
  });
}

/** Whether `name` is on: as given in `--feature-gates`, else its default. */
export function featureEnabled(gates: Readonly<Record<string, FeatureGate>>, given: Readonly<Record<string, boolean>> | undefined, name: string): boolean {
  return given?.[name] ?? gates[name]?.default ?? false;
}

/** The gates the API server implements. */
export const APISERVER_FEATURE_GATES: Readonly<Record<string, FeatureGate>> = {
  APIServerIdentity: {
    default: true,
    stage: 'Beta',
    what: 'each API server holds a Lease named by its identity in the system namespace, renewed every --identity-lease-renew-interval-seconds',
  },
  ConsistentListFromCache: {
    default: true,
    stage: 'Beta',
    what: 'reads without a resourceVersion are served from the watch cache once it has caught up with the store',
  },
};

/** The gates the controller manager implements. */
export const CONTROLLER_MANAGER_FEATURE_GATES: Readonly<Record<string, FeatureGate>> = {
  PodDeletionCost: { default: true, stage: 'Beta', what: 'the controller.kubernetes.io/pod-deletion-cost annotation orders scale-down' },
  LogarithmicScaleDown: { default: true, stage: 'Beta', what: 'scale-down prefers pods of similar age on a logarithmic scale' },
  DeploymentReplicaSetTerminatingReplicas: {
    default: true,
    stage: 'Beta',
    what: 'ReplicaSets and Deployments report terminating replicas in status.terminatingReplicas',
  },
};

export const PROFILING_FLAGS = [
  flag({ name: 'profiling', type: bool, default: true, help: 'profiling endpoint on `/debug/pprof/`' }),
  flag({ name: 'contention-profiling', type: bool, help: 'lock contention profiling if profiling is on' }),
];

export const CLOUD_FLAGS = [
  flag({ name: 'cloud-config', type: string, help: 'cloud provider configuration path' }),
  flag({ name: 'cloud-provider', type: string, help: 'cloud provider name' }),
  flag({
    name: 'cloud-provider-gce-l7lb-src-cidrs',
    type: cidrs,
    default: ['130.211.0.0/22', '35.191.0.0/16'],
    help: 'CIDRs opened in a vendor firewall for L7 load balancer traffic and health checks',
  }),
];

/** Serving flags whose meaning and default are the same in both processes (the port and cert dir differ). */
export const SHARED_SERVING_FLAGS = [
  flag({
    name: 'bind-address',
    type: string,
    default: '0.0.0.0',
    help: 'listen address for the secure port; blank or unspecified means all interfaces',
    check: ipAddressOrBlank,
  }),
  flag({ name: 'permit-address-sharing', type: bool, default: false, help: 'use SO_REUSEADDR when binding' }),
  flag({ name: 'permit-port-sharing', type: bool, default: false, help: 'use SO_REUSEPORT when binding' }),
  flag({
    name: 'http2-max-streams-per-connection',
    type: int,
    help: 'stream limit given to clients; 0 uses the library default',
    check: atLeast(0),
  }),
  flag({ name: 'tls-cert-file', type: string, help: 'default certificate; if absent with its key, a self-signed pair is generated into --cert-dir' }),
  flag({ name: 'tls-private-key-file', type: string, help: 'default private key matching --tls-cert-file' }),
  flag({
    name: 'tls-cipher-suites',
    type: stringsOf(Object.keys(TLS_CIPHER_SUITES)),
    help: 'allowed cipher suites; default library set if omitted',
  }),
  flag({
    name: 'tls-min-version',
    type: oneOf(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']),
    help: 'minimum TLS version: `VersionTLS10`, `VersionTLS11`, `VersionTLS12`, `VersionTLS13`',
  }),
  flag({
    name: 'tls-sni-cert-key',
    type: namedCertKey,
    help: 'certificate and key paths with optional domain patterns after a colon (`a.crt,a.key:*.example.com`); repeatable',
  }),
];

export const CLIENT_CA_FLAG = flag({
  name: 'client-ca-file',
  type: string,
  help: 'client certificates signed by it authenticate as the certificate CommonName',
});

/** Entries of --cors-allowed-origins are regular expressions. */
export const checkRegexps = eachEntry((entry) => {
  try {
    new RegExp(entry);
    return undefined;
  } catch (error) {
    return `not a valid regular expression: ${errorMessage(error)}`;
  }
});

/** `--leader-elect*`: the lease a process campaigns for, named `resourceName` in `svc-system` by default. */
export function leaderElectionFlags(resourceName: string, locks: readonly string[]) {
  return [
    flag({ name: 'leader-elect', type: bool, default: true, help: 'acquire a leader lease before running the control loops' }),
    flag({
      name: 'leader-elect-lease-duration',
      type: duration,
      default: 15_000,
      help: 'how long non-leaders wait after a renewal before trying to take over',
      check: durationAbove(0),
    }),
    flag({
      name: 'leader-elect-renew-deadline',
      type: duration,
      default: 10_000,
      help: 'how long the leader retries renewing before giving up; at most the lease duration',
      check: durationAbove(0),
    }),
    flag({
      name: 'leader-elect-resource-lock',
      type: oneOf(locks),
      default: 'leases',
      help: locks.map((l) => `\`${l}\``).join(', '),
    }),
    flag({ name: 'leader-elect-resource-name', type: string, default: resourceName, help: 'name of the lock object', check: nonEmpty }),
    flag({ name: 'leader-elect-resource-namespace', type: string, default: 'svc-system', help: 'namespace of the lock object', check: nonEmpty }),
    flag({ name: 'leader-elect-retry-period', type: duration, default: 2_000, help: 'wait between attempts to acquire or renew the lease' }),
  ];
}

/** The connection to the API server (`--master`, `--svcconfig`, `--svc-api-*`) with the process's own rate defaults. */
export function clientFlags(qps: number, burst: number) {
  return [
    flag({ name: 'master', type: string, help: 'API server address, overrides the config; several (comma-separated) are tried in turn' }),
    flag({ name: 'svcconfig', type: string, help: 'path with authorization and master location' }),
    flag({
      name: 'svc-api-content-type',
      // The client's accepted values (CLIENT_CONTENT_TYPES of @svc/client, which sits above this library):
      // both protobuf names mean Kubernetes' protobuf on the wire. Protobuf by default, as spec 2 and
      // Kubernetes' own components have it; docs/kubectl.md ("Content types") gives its measured cost.
      type: oneOf(['application/json', 'application/vnd.svc.protobuf', 'application/vnd.kubernetes.protobuf']),
      default: 'application/vnd.svc.protobuf',
      help: 'request content type: protobuf (either name: Kubernetes protobuf for built-in kinds, JSON for the rest) or application/json',
    }),
    flag({ name: 'svc-api-qps', type: float, default: qps, help: 'requests per second to the API server', check: atLeast(0) }),
    flag({ name: 'svc-api-burst', type: int32, default: burst, help: 'burst to the API server', check: atLeast(0) }),
  ];
}

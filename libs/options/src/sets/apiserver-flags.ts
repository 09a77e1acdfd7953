import { errorMessage } from '@svc/machinery';
import { parseDualStackCidrs } from '../flags/cidr';
import { bool } from '../flags/bool';
import { duration } from '../flags/duration';
import { float } from '../flags/float';
import { int } from '../flags/int';
import { keyValuePairs } from '../flags/key-value-pairs';
import { portRange } from '../flags/port-range';
import { oneOf, string } from '../flags/string';
import { strings, stringsOf } from '../flags/strings';
import { flag, type CheckResult } from '../flag-set/flag';
import { flagTable, helpFlag, versionFlag, type OptionsOf } from '../flag-set/flag-set';
import { DEFAULT_ADMISSION_PLUGINS, OPTIONAL_ADMISSION_PLUGINS } from './admission-plugins';
import { atLeast, between, durationAtLeast, durationAbove, eachEntry, greaterThan, ipAddress, nonEmpty, urlProblem } from './checks';
import {
  checkRegexps,
  CLIENT_CA_FLAG,
  CLOUD_FLAGS,
  featureGatesFlag,
  APISERVER_FEATURE_GATES,
  LOG_FLAGS,
  METRICS_FLAGS,
  PROFILING_FLAGS,
  SHARED_SERVING_FLAGS,
} from './common-flags';

const PROGRAM = 'svc-apiserver';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export const OIDC_SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] as const;
export const STORAGE_BACKENDS = ['embedded', 'store3', 'mongodb'] as const;
export const NODE_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'] as const;
const AUDIT_MODES = ['batch', 'blocking', 'blocking-strict'] as const;
const AUDIT_VERSIONS = ['audit.svc.io/v1', 'audit.k8s.io/v1'] as const;
const REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;

/** `resource[.group]#size`, size >= 0. */
function watchCacheSizeProblem(entry: string): string | undefined {
  const match = /^([^#]*)#(.*)$/.exec(entry);
  if (!match || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(match[1])) {
    return 'entries must be resource[.group]#size';
  }
  if (!/^-?\d+$/.test(match[2])) return 'entries must be resource[.group]#size with a whole-number size';
  return Number(match[2]) < 0 ? 'watch cache size cannot be negative' : undefined;
}

/**
 * Each entry a URL; except that a MongoDB connection string naming several hosts
 * (`mongodb://a:27017,b:27017/?replicaSet=rs0`) arrives split at its commas, its later hosts without a scheme.
 */
function storeServersProblem(values: readonly string[]): CheckResult {
  const mongodb = /^mongodb(\+srv)?:\/\//.test(values[0] ?? '');
  for (const [i, entry] of values.entries()) {
    if (mongodb && i > 0 && /^[^/:]+(:\d+)?(\/.*)?$/.test(entry)) continue;
    const reason = urlProblem(entry);
    if (reason !== undefined) return { value: entry, reason };
  }
  return undefined;
}

/** `group/resource#server1;server2`. */
function serversOverrideProblem(entry: string): string | undefined {
  const match = /^([^/#]*)\/([^/#]+)#(.+)$/.exec(entry);
  if (!match) return 'entries must be group/resource#servers, servers separated by semicolons';
  for (const server of match[3].split(';')) {
    const problem = urlProblem(server);
    if (problem) return problem;
  }
  return undefined;
}

/** `max-age=<seconds>`, `includeSubDomains`, `preload`. */
function hstsDirectiveProblem(entry: string): string | undefined {
  return /^max-age=\d+$/.test(entry) || entry === 'includeSubDomains' || entry === 'preload'
    ? undefined
    : 'directives are max-age=<seconds>, includeSubDomains and preload';
}

function issuerProblem(entry: string): string | undefined {
  return entry.includes(':') ? urlProblem(entry) : undefined;
}

function httpsUrlProblem(value: string): string | undefined {
  if (urlProblem(value) !== undefined || new URL(value).protocol !== 'https:') return 'must be a valid https URL';
  return undefined;
}

/** The API server's flag table: spec 2 plus the product's --storage-backend values, --data-dir and --svcconfig-out. */
export const API_SERVER_FLAGS = flagTable({
  program: PROGRAM,
  description:
    'The API server validates and configures data for API objects (pods, services, replication controllers and others),\n' +
    'serves the REST operations, and is the front end to the shared cluster state through which all other components interact.',
  groups: [
    {
      title: 'Generic',
      flags: [
        helpFlag(PROGRAM),
        versionFlag(),
        flag({
          name: 'advertise-address',
          type: string,
          help: 'address advertised to cluster members; falls back to bind address, then host default interface',
          check: ipAddress,
        }),
        flag({ name: 'allow-privileged', type: bool, default: false, help: 'allow privileged containers' }),
        ...CLOUD_FLAGS,
        flag({
          name: 'cors-allowed-origins',
          type: strings,
          help: 'allowed origins (regular expressions allowed); empty disables CORS',
          check: checkRegexps,
        }),
        flag({
          name: 'default-not-ready-toleration-seconds',
          type: int,
          default: 300,
          help: 'tolerationSeconds of the default notReady:NoExecute toleration added to pods',
        }),
        flag({
          name: 'default-unreachable-toleration-seconds',
          type: int,
          default: 300,
          help: 'tolerationSeconds of the default unreachable:NoExecute toleration added to pods',
        }),
        flag({ name: 'egress-selector-config-file', type: string, help: 'egress selector configuration' }),
        flag({
          name: 'enable-aggregator-routing',
          type: bool,
          help: 'route aggregator requests to endpoint IPs rather than cluster IP',
        }),
        flag({
          name: 'enable-garbage-collector',
          type: bool,
          default: true,
          help: "must match the controller manager's flag",
        }),
        flag({
          name: 'endpoint-reconciler-type',
          type: oneOf(['master-count', 'lease', 'none']),
          default: 'lease',
          help: '`master-count` (deprecated), `lease`, `none`',
        }),
        flag({ name: 'event-ttl', type: duration, default: 3_600_000, help: 'retention of events' }),
        flag({
          name: 'external-hostname',
          type: string,
          help: 'hostname for externalized URLs (API docs, discovery)',
        }),
        flag({
          name: 'identity-lease-duration-seconds',
          type: int,
          default: 3600,
          help: 'server identity lease duration (with `APIServerIdentity` gate)',
          check: greaterThan(0),
        }),
        flag({
          name: 'identity-lease-renew-interval-seconds',
          type: int,
          default: 10,
          help: 'server identity lease renewal interval',
          check: greaterThan(0),
        }),
        flag({
          name: 'livez-grace-period',
          type: duration,
          help: 'startup time during which `/livez` assumes unfinished post-start hooks will succeed',
          check: durationAtLeast(0),
        }),
        flag({ name: 'master-service-namespace', type: string, default: 'default', help: 'deprecated' }),
        flag({
          name: 'nodeagent-certificate-authority',
          type: string,
          help: 'CA file for node agent connections',
        }),
        flag({ name: 'nodeagent-client-certificate', type: string, help: 'client certificate for node agent connections' }),
        flag({ name: 'nodeagent-client-key', type: string, help: 'client key for node agent connections' }),
        flag({
          name: 'nodeagent-preferred-address-types',
          type: stringsOf(NODE_ADDRESS_TYPES),
          default: [...NODE_ADDRESS_TYPES],
          help: 'address types tried for node agent connections',
        }),
        flag({ name: 'nodeagent-timeout', type: duration, default: 5_000, help: 'timeout for node agent operations' }),
        ...PROFILING_FLAGS,
        flag({
          name: 'proxy-client-cert-file',
          type: string,
          help:
            'identity of the aggregator or API server when calling out (proxying, admission webhooks); certificate is ' +
            'expected to be signed by the CA of `--requestheader-client-ca-file`',
        }),
        flag({ name: 'proxy-client-key-file', type: string, help: 'private key for --proxy-client-cert-file' }),
        flag({
          name: 'service-cluster-ip-range',
          type: string,
          help: 'CIDR for service cluster IPs; not overlapping node or pod ranges; at most two dual-stack CIDRs',
          check: (v: string) => {
            try {
              parseDualStackCidrs(v);
              return undefined;
            } catch (error) {
              return errorMessage(error);
            }
          },
        }),
        flag({
          name: 'service-node-port-range',
          type: portRange,
          default: { base: 30000, size: 2768 },
          help: 'NodePort range, inclusive',
        }),
        flag({
          name: 'shutdown-delay-duration',
          type: duration,
          help: 'delay of termination; during it `/healthz` and `/livez` succeed while `/readyz` fails at once',
          check: durationAtLeast(0),
        }),
        flag({
          name: 'shutdown-send-retry-after',
          type: bool,
          help: 'when true, drain in-flight non-long-running requests while rejecting new ones with 429, `Retry-After` ' + 'and `Connection: close`',
        }),
        flag({
          name: 'svc-service-node-port',
          type: int,
          help: 'if non-zero, the master service is NodePort on this port; else ClusterIP',
          check: between(0, 65535),
        }),
        flag({ name: 'tracing-config-file', type: string, help: 'tracing configuration' }),
      ],
    },
    {
      title: 'Store',
      flags: [
        flag({
          name: 'storage-backend',
          type: oneOf(STORAGE_BACKENDS, { etcd3: 'the etcd v3 backend is called store3 here' }),
          default: 'embedded',
          help: 'persistence backend: `embedded` (zero-setup store in --data-dir), `store3` (an etcd v3 cluster at --store-servers) or `mongodb` (a replica set at --store-servers)',
        }),
        flag({
          name: 'storage-media-type',
          type: oneOf(['application/json', 'application/yaml', 'application/vnd.svc.protobuf']),
          default: 'application/vnd.svc.protobuf',
          help: 'media type for stored objects; some resources ignore it',
        }),
        flag({
          name: 'store-servers',
          type: strings,
          help: 'store servers to connect to (`scheme://ip:port`): the etcd members for store3, one connection string for mongodb; required with both',
          check: storeServersProblem,
        }),
        flag({
          name: 'store-servers-overrides',
          type: strings,
          help: 'per-resource store servers: `group/resource#servers`, servers separated by semicolons (e.g. `/events#https://10.0.0.9:2379` keeps Events on a cluster of their own)',
          check: eachEntry(serversOverrideProblem),
        }),
        flag({ name: 'store-cafile', type: string, help: 'CA file securing store connections' }),
        flag({ name: 'store-certfile', type: string, help: 'client certificate for store connections' }),
        flag({ name: 'store-keyfile', type: string, help: 'client key for store connections' }),
        flag({ name: 'store-prefix', type: string, default: '/registry', help: 'prefix of all resource paths in the store' }),
        flag({
          name: 'store-compaction-interval',
          type: duration,
          default: 300_000,
          help: 'interval of compaction requests; 0 disables compaction',
          check: durationAtLeast(0),
        }),
        flag({
          name: 'store-count-metric-poll-period',
          type: duration,
          default: 60_000,
          help: 'how often object counts per resource are read for metrics; 0 disables',
          check: durationAtLeast(0),
        }),
        flag({
          name: 'store-db-metric-poll-interval',
          type: duration,
          default: 30_000,
          help: 'how often the database size is read for metrics; 0 disables',
          check: durationAtLeast(0),
        }),
        flag({
          name: 'store-healthcheck-timeout',
          type: duration,
          default: 2_000,
          help: 'timeout of the store health check',
          check: durationAbove(0),
        }),
        flag({
          name: 'store-readycheck-timeout',
          type: duration,
          default: 2_000,
          help: 'timeout of the store readiness check',
          check: durationAbove(0),
        }),
        flag({
          name: 'lease-reuse-duration-seconds',
          type: int,
          default: 60,
          help: 'time an etcd lease is reused by keys with a time to live (store3)',
          check: greaterThan(0),
        }),
        flag({ name: 'delete-collection-workers', type: int, default: 1, help: 'workers for DeleteCollection' }),
        flag({
          name: 'encryption-provider-config',
          type: string,
          help: 'file configuring encryption of secrets in the store',
        }),
        flag({ name: 'watch-cache', type: bool, default: true, help: 'watch caching' }),
        flag({
          name: 'watch-cache-sizes',
          type: strings,
          help: '`resource[.group]#size`; only 0 is meaningful (disables caching for that resource); non-zero values are equivalent',
          check: eachEntry(watchCacheSizeProblem),
        }),
      ],
    },
    {
      title: 'Secure serving',
      flags: [
        ...SHARED_SERVING_FLAGS,
        flag({
          name: 'cert-dir',
          type: string,
          default: '/var/run/svc',
          help: 'directory of TLS certificates; ignored when cert and key files are given',
        }),
        flag({
          name: 'secure-port',
          type: int,
          default: 6443,
          help: 'HTTPS port; cannot be 0',
          check: (port: number) => (port === 0 ? 'cannot be 0' : between(1, 65535)(port)),
        }),
        flag({
          name: 'strict-transport-security-directives',
          type: strings,
          help: 'HSTS directives; empty adds none (example `max-age=31536000,includeSubDomains,preload`)',
          check: eachEntry(hstsDirectiveProblem),
        }),
      ],
    },
    {
      title: 'Audit',
      flags: [
        flag({ name: 'audit-policy-file', type: string, help: 'audit policy path' }),
        flag({ name: 'audit-log-path', type: string, help: 'log file for all requests; `-` means standard out' }),
        flag({
          name: 'audit-log-format',
          type: oneOf(['legacy', 'json']),
          default: 'json',
          help: '`legacy` (one text line per event) or `json`',
        }),
        flag({ name: 'audit-log-mode', type: oneOf(AUDIT_MODES), default: 'blocking', help: '`batch`, `blocking`, `blocking-strict`' }),
        flag({
          name: 'audit-log-version',
          type: oneOf(AUDIT_VERSIONS),
          default: 'audit.svc.io/v1',
          help: 'group and version of serialized events',
        }),
        flag({ name: 'audit-log-maxage', type: int, help: 'retention days', check: atLeast(0) }),
        flag({ name: 'audit-log-maxbackup', type: int, help: 'retained old files (0 means unrestricted)', check: atLeast(0) }),
        flag({ name: 'audit-log-maxsize', type: int, help: 'rotation size in MB', check: atLeast(0) }),
        flag({ name: 'audit-log-compress', type: bool, help: 'gzip rotated files' }),
        flag({ name: 'audit-log-batch-buffer-size', type: int, default: 10000, help: 'batch mode buffer' }),
        flag({ name: 'audit-log-batch-max-size', type: int, default: 1, help: 'batch size' }),
        flag({ name: 'audit-log-batch-max-wait', type: duration, help: 'batch mode: longest wait before a partial batch is written' }),
        flag({ name: 'audit-log-batch-throttle-burst', type: int, help: 'batch mode: batches sent at once when throttling had been idle' }),
        flag({ name: 'audit-log-batch-throttle-enable', type: bool, help: 'batch mode: throttle batching' }),
        flag({ name: 'audit-log-batch-throttle-qps', type: float, help: 'batch mode: batches per second when throttling' }),
        flag({ name: 'audit-log-truncate-enabled', type: bool, help: 'truncate events and batches' }),
        flag({ name: 'audit-log-truncate-max-batch-size', type: int, default: 10485760, help: 'split larger batches (bytes)' }),
        flag({
          name: 'audit-log-truncate-max-event-size',
          type: int,
          default: 102400,
          help: 'larger events lose request and response, then are discarded (bytes)',
        }),
        flag({ name: 'audit-webhook-config-file', type: string, help: 'webhook configuration file' }),
        flag({ name: 'audit-webhook-mode', type: oneOf(AUDIT_MODES), default: 'batch', help: 'same modes as the log: `batch`, `blocking`, `blocking-strict`' }),
        flag({ name: 'audit-webhook-version', type: oneOf(AUDIT_VERSIONS), default: 'audit.svc.io/v1', help: 'serialization version' }),
        flag({ name: 'audit-webhook-batch-buffer-size', type: int, default: 10000, help: 'batch mode buffer' }),
        flag({ name: 'audit-webhook-batch-max-size', type: int, default: 400, help: 'batch size' }),
        flag({ name: 'audit-webhook-batch-max-wait', type: duration, default: 30_000, help: 'force-write wait' }),
        flag({ name: 'audit-webhook-batch-throttle-burst', type: int, default: 15, help: 'burst' }),
        flag({ name: 'audit-webhook-batch-throttle-enable', type: bool, default: true, help: 'throttling' }),
        flag({ name: 'audit-webhook-batch-throttle-qps', type: float, default: 10, help: 'batches per second' }),
        flag({ name: 'audit-webhook-initial-backoff', type: duration, default: 10_000, help: 'wait before first retry' }),
        flag({ name: 'audit-webhook-truncate-enabled', type: bool, help: 'truncate events and batches' }),
        flag({ name: 'audit-webhook-truncate-max-batch-size', type: int, default: 10485760, help: 'split larger batches (bytes)' }),
        flag({
          name: 'audit-webhook-truncate-max-event-size',
          type: int,
          default: 102400,
          help: 'larger events lose request and response, then are discarded (bytes)',
        }),
      ],
    },
    {
      title: 'Authentication',
      flags: [
        flag({
          name: 'anonymous-auth',
          type: bool,
          default: true,
          help: 'unrejected unauthenticated requests become user `system:anonymous` in group `system:unauthenticated`',
        }),
        flag({
          name: 'api-audiences',
          type: strings,
          help: 'token audiences accepted; defaults to the issuer URL when an issuer is set',
        }),
        flag({
          name: 'authentication-token-webhook-config-file',
          type: string,
          help: 'webhook for bearer tokens (config-file format)',
        }),
        flag({
          name: 'authentication-token-webhook-cache-ttl',
          type: duration,
          default: 120_000,
          help: 'how long webhook token answers are cached',
        }),
        flag({
          name: 'authentication-token-webhook-version',
          type: oneOf(REVIEW_VERSIONS),
          default: 'v1beta1',
          help: 'version of the token review exchanged',
        }),
        CLIENT_CA_FLAG,
        flag({
          name: 'enable-bootstrap-token-auth',
          type: bool,
          help: 'allow secrets of type `bootstrap.svc.io/token` in the `svc-system` namespace for TLS bootstrap',
        }),
        flag({ name: 'token-auth-file', type: string, help: 'static token file for the secure port' }),
        flag({
          name: 'oidc-issuer-url',
          type: string,
          help: 'HTTPS issuer of identity-provider tokens',
          check: httpsUrlProblem,
        }),
        flag({ name: 'oidc-client-id', type: string, help: 'client ID tokens must be issued for; required when an issuer is set' }),
        flag({ name: 'oidc-ca-file', type: string, help: 'CA for the issuer; host roots otherwise' }),
        flag({ name: 'oidc-username-claim', type: string, default: 'sub', help: 'claim for the user name' }),
        flag({
          name: 'oidc-username-prefix',
          type: string,
          help: 'prefix for user names; `-` skips prefixing; by default claims other than email are prefixed with the issuer URL',
        }),
        flag({ name: 'oidc-groups-claim', type: string, help: 'group claim (string or array)' }),
        flag({ name: 'oidc-groups-prefix', type: string, help: 'prefix for group names' }),
        flag({ name: 'oidc-required-claim', type: keyValuePairs(), help: 'repeatable `key=value` required claims' }),
        flag({
          name: 'oidc-signing-algs',
          type: stringsOf(OIDC_SIGNING_ALGORITHMS),
          default: ['RS256'],
          help: 'allowed: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512',
        }),
        flag({
          name: 'requestheader-client-ca-file',
          type: string,
          help: 'CA that verifies clients before trusting identity headers',
        }),
        flag({
          name: 'requestheader-allowed-names',
          type: strings,
          help: 'allowed certificate common names; empty allows any',
        }),
        flag({
          name: 'requestheader-username-headers',
          type: strings,
          help: 'request headers to inspect for the user name (suggested `X-Remote-User`)',
        }),
        flag({
          name: 'requestheader-group-headers',
          type: strings,
          help: 'request headers to inspect for groups (suggested `X-Remote-Group`)',
        }),
        flag({
          name: 'requestheader-extra-headers-prefix',
          type: strings,
          help: 'request header prefixes to inspect for extra user information (suggested `X-Remote-Extra-`)',
        }),
        flag({
          name: 'service-account-issuer',
          type: strings,
          help:
            'issuer identifier (claim `iss`); repeatable, first signs and all are accepted; should be an HTTPS URL able ' +
            'to serve a discovery document at `/.well-known/openid-configuration`',
          check: eachEntry(issuerProblem),
        }),
        flag({
          name: 'service-account-jwks-uri',
          type: string,
          help: 'overrides the key-set URI in the discovery document',
        }),
        flag({
          name: 'service-account-key-file',
          type: strings,
          help: 'verification keys (PEM); repeatable; required when a signing key file is set; defaults to the TLS private key file',
        }),
        flag({
          name: 'service-account-signing-key-file',
          type: string,
          help: 'current private key of the issuer',
        }),
        flag({
          name: 'service-account-lookup',
          type: bool,
          default: true,
          help: 'validate that the account exists in the store',
        }),
        flag({
          name: 'service-account-max-token-expiration',
          type: duration,
          help: 'cap for requested token validity',
          check: durationAtLeast(0),
        }),
        flag({
          name: 'service-account-extend-token-expiration',
          type: bool,
          default: true,
          help: 'extends injected tokens up to 1 year, ignoring the maximum',
        }),
      ],
    },
    {
      title: 'Authorization',
      flags: [
        flag({
          name: 'authorization-mode',
          type: stringsOf(AUTHORIZATION_MODES, { unique: true }),
          default: ['AlwaysAllow'],
          help: 'ordered list of `AlwaysAllow`, `AlwaysDeny`, `ABAC`, `Webhook`, `RBAC`, `Node`',
        }),
        flag({ name: 'authorization-policy-file', type: string, help: 'JSON lines for ABAC' }),
        flag({ name: 'authorization-webhook-config-file', type: string, help: 'for Webhook mode' }),
        flag({
          name: 'authorization-webhook-cache-authorized-ttl',
          type: duration,
          default: 300_000,
          help: 'how long authorized webhook answers are cached',
        }),
        flag({
          name: 'authorization-webhook-cache-unauthorized-ttl',
          type: duration,
          default: 30_000,
          help: 'how long unauthorized webhook answers are cached',
        }),
        flag({
          name: 'authorization-webhook-version',
          type: oneOf(REVIEW_VERSIONS),
          default: 'v1beta1',
          help: 'version of the access review exchanged',
        }),
      ],
    },
    {
      title: 'Admission',
      flags: [
        flag({ name: 'admission-control-config-file', type: string, help: 'admission control configuration file' }),
        flag({
          name: 'enable-admission-plugins',
          type: stringsOf([...DEFAULT_ADMISSION_PLUGINS, ...OPTIONAL_ADMISSION_PLUGINS]),
          help: `plugins enabled in addition to defaults (${DEFAULT_ADMISSION_PLUGINS.join(', ')}); also accepted: ${OPTIONAL_ADMISSION_PLUGINS.join(', ')}; order does not matter`,
        }),
        flag({
          name: 'disable-admission-plugins',
          type: stringsOf([...DEFAULT_ADMISSION_PLUGINS, ...OPTIONAL_ADMISSION_PLUGINS]),
          help: 'plugins disabled although on by default; order does not matter',
        }),
      ],
    },
    {
      title: 'Limits',
      flags: [
        flag({
          name: 'max-requests-inflight',
          type: int,
          default: 400,
          help:
            'non-mutating concurrency cap; with `--enable-priority-and-fairness` summed with the mutating cap as total ' +
            'limit (must be positive); 0 disables otherwise',
          check: atLeast(0),
        }),
        flag({ name: 'max-mutating-requests-inflight', type: int, default: 200, help: 'mutating cap', check: atLeast(0) }),
        flag({
          name: 'enable-priority-and-fairness',
          type: bool,
          default: true,
          help: 'replaces the in-flight handler with a queueing, prioritizing one when the `APIPriorityAndFairness` gate is on',
        }),
        flag({
          name: 'min-request-timeout',
          type: int,
          default: 1800,
          help: 'minimum watch handler keep-open time in seconds; a randomized value above it is used',
          check: greaterThan(0),
        }),
        flag({
          name: 'request-timeout',
          type: duration,
          default: 60_000,
          help: 'default request timeout',
          check: durationAtLeast(0),
        }),
        flag({
          name: 'max-connection-bytes-per-sec',
          type: int,
          help: 'throttle per user connection for long-running requests when non-zero',
          check: atLeast(0),
        }),
        flag({
          name: 'goaway-chance',
          type: float,
          help: 'fraction of requests receiving an HTTP/2 GOAWAY; 0 off, maximum 0.02; not for single-server clusters',
          check: between(0, 0.02),
        }),
      ],
    },
    {
      title: 'Feature',
      flags: [
        featureGatesFlag(APISERVER_FEATURE_GATES),
        flag({
          name: 'runtime-config',
          type: keyValuePairs({ missingValue: 'true' }),
          help: 'enable or disable built-in APIs as key=value pairs; a key alone means key=true',
        }),
      ],
    },
    { title: 'Logs', flags: [...LOG_FLAGS] },
    { title: 'Metrics', flags: [...METRICS_FLAGS] },
    {
      title: 'Product',
      flags: [
        flag({
          name: 'data-dir',
          type: string,
          default: '/var/lib/svc/data',
          help: 'directory of the embedded store',
          check: nonEmpty,
        }),
        flag({
          name: 'svcconfig-out',
          type: string,
          default: '',
          help: 'path where the server writes a client connection file; empty means `<cert-dir>/svcconfig`',
        }),
      ],
    },
  ],
});

/** The API server's parsed options; durations in milliseconds, flags without a default undefined unless given. */
export interface ApiServerFlags extends OptionsOf<typeof API_SERVER_FLAGS> {}

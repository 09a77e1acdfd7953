import { parseDualStackCidrs } from '../flags/cidr';
import { formatPortRange, portRangeContains } from '../flags/port-range';
import { defineFlagSet, type Problem, type Rule } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import { API_SERVER_FLAGS, type ApiServerFlags } from './apiserver-flags';
import { givenTogether } from './shared-rules';

type ApiServerRule = Rule<ApiServerFlags>;

const authorizationModeFiles: ApiServerRule = (o) => {
  const modes: readonly string[] = o.authorizationMode;
  const mode = modes.join(',');
  if (modes.includes('ABAC') && !o.authorizationPolicyFile) {
    return { flag: 'authorization-mode', value: mode, reason: 'authorization mode ABAC requires --authorization-policy-file' };
  }
  if (modes.includes('Webhook') && !o.authorizationWebhookConfigFile) {
    return { flag: 'authorization-mode', value: mode, reason: 'authorization mode Webhook requires --authorization-webhook-config-file' };
  }
  if (o.authorizationPolicyFile && !modes.includes('ABAC')) {
    return { flag: 'authorization-policy-file', reason: 'is only used with --authorization-mode ABAC' };
  }
  if (o.authorizationWebhookConfigFile && !modes.includes('Webhook')) {
    return { flag: 'authorization-webhook-config-file', reason: 'is only used with --authorization-mode Webhook' };
  }
  return undefined;
};

const oidcClientId: ApiServerRule = (o) =>
  o.oidcIssuerUrl && !o.oidcClientId ? { flag: 'oidc-issuer-url', reason: '--oidc-client-id is required when --oidc-issuer-url is set' } : undefined;

const storeServersForBackend: ApiServerRule = (o) => {
  if (o.storageBackend !== 'embedded' && (o.storeServers ?? []).length === 0) {
    return { flag: 'storage-backend', reason: `--store-servers is required with the ${o.storageBackend} backend` };
  }
  if (o.storageBackend === 'embedded' && (o.storeServersOverrides ?? []).length > 0) {
    return { flag: 'store-servers-overrides', reason: 'needs --storage-backend=store3 or mongodb: the embedded store is one file' };
  }
  if (o.storageBackend !== 'store3' && o.leaseReuseDurationSeconds !== 60) {
    return { flag: 'lease-reuse-duration-seconds', reason: 'is used by the store3 backend only (its etcd leases); the other stores expire keys themselves' };
  }
  return undefined;
};

const admissionOverlap: ApiServerRule = (o) => {
  const enabled: readonly string[] = o.enableAdmissionPlugins ?? [];
  const both = (o.disableAdmissionPlugins ?? []).find((p) => enabled.includes(p));
  return both === undefined
    ? undefined
    : { flag: 'disable-admission-plugins', value: both, reason: 'is in both --enable-admission-plugins and --disable-admission-plugins' };
};

const inflightTotal: ApiServerRule = (o) =>
  o.enablePriorityAndFairness && o.maxRequestsInflight + o.maxMutatingRequestsInflight <= 0
    ? {
        flag: 'max-requests-inflight',
        value: String(o.maxRequestsInflight),
        reason: `with --enable-priority-and-fairness, --max-requests-inflight and --max-mutating-requests-inflight (${o.maxMutatingRequestsInflight}) must sum to a positive number`,
      }
    : undefined;

const serviceNodePortInRange: ApiServerRule = (o) =>
  o.svcServiceNodePort && !portRangeContains(o.serviceNodePortRange, o.svcServiceNodePort)
    ? {
        flag: 'svc-service-node-port',
        reason: `must be within --service-node-port-range ${formatPortRange(o.serviceNodePortRange)}`,
      }
    : undefined;

const serviceAccountKeys: ApiServerRule = (o) =>
  o.serviceAccountSigningKeyFile && (o.serviceAccountKeyFile ?? []).length === 0 && !o.tlsPrivateKeyFile
    ? {
        flag: 'service-account-signing-key-file',
        reason: '--service-account-key-file (or --tls-private-key-file) is required when a signing key file is set',
      }
    : undefined;

function auditBackend(
  prefix: 'audit-log' | 'audit-webhook',
  enabled: boolean,
  o: {
    mode: string;
    bufferSize: number;
    maxSize: number;
    throttleEnable: boolean | undefined;
    throttleQps: number | undefined;
    throttleBurst: number | undefined;
    truncateEnabled: boolean | undefined;
    truncateMaxBatchSize: number;
    truncateMaxEventSize: number;
  },
): Problem | undefined {
  if (!enabled) return undefined;
  if (o.mode === 'batch') {
    if (o.bufferSize <= 0) return { flag: `${prefix}-batch-buffer-size`, reason: 'must be positive in batch mode' };
    if (o.maxSize <= 0) return { flag: `${prefix}-batch-max-size`, reason: 'must be positive in batch mode' };
    if (o.throttleEnable && !((o.throttleQps ?? 0) > 0)) {
      return { flag: `${prefix}-batch-throttle-qps`, value: String(o.throttleQps ?? ''), reason: 'must be positive when throttling is enabled' };
    }
    if (o.throttleEnable && !((o.throttleBurst ?? 0) > 0)) {
      return { flag: `${prefix}-batch-throttle-burst`, value: String(o.throttleBurst ?? ''), reason: 'must be positive when throttling is enabled' };
    }
  }
  if (o.truncateEnabled) {
    if (o.truncateMaxEventSize <= 0) return { flag: `${prefix}-truncate-max-event-size`, reason: 'must be positive' };
    if (o.truncateMaxBatchSize < o.truncateMaxEventSize) {
      return { flag: `${prefix}-truncate-max-batch-size`, reason: `must not be smaller than --${prefix}-truncate-max-event-size` };
    }
  }
  return undefined;
}

const auditLog: ApiServerRule = (o) =>
  auditBackend('audit-log', !!o.auditLogPath, {
    mode: o.auditLogMode,
    bufferSize: o.auditLogBatchBufferSize,
    maxSize: o.auditLogBatchMaxSize,
    throttleEnable: o.auditLogBatchThrottleEnable,
    throttleQps: o.auditLogBatchThrottleQps,
    throttleBurst: o.auditLogBatchThrottleBurst,
    truncateEnabled: o.auditLogTruncateEnabled,
    truncateMaxBatchSize: o.auditLogTruncateMaxBatchSize,
    truncateMaxEventSize: o.auditLogTruncateMaxEventSize,
  });

const auditWebhook: ApiServerRule = (o) =>
  auditBackend('audit-webhook', !!o.auditWebhookConfigFile, {
    mode: o.auditWebhookMode,
    bufferSize: o.auditWebhookBatchBufferSize,
    maxSize: o.auditWebhookBatchMaxSize,
    throttleEnable: o.auditWebhookBatchThrottleEnable,
    throttleQps: o.auditWebhookBatchThrottleQps,
    throttleBurst: o.auditWebhookBatchThrottleBurst,
    truncateEnabled: o.auditWebhookTruncateEnabled,
    truncateMaxBatchSize: o.auditWebhookTruncateMaxBatchSize,
    truncateMaxEventSize: o.auditWebhookTruncateMaxEventSize,
  });

/** Cross-flag rules of the API server, checked in this order after every flag parsed. */
const API_SERVER_RULES: readonly ApiServerRule[] = [
  givenTogether('tls-cert-file', 'tls-private-key-file'),
  givenTogether('proxy-client-cert-file', 'proxy-client-key-file'),
  givenTogether('nodeagent-client-certificate', 'nodeagent-client-key'),
  authorizationModeFiles,
  oidcClientId,
  storeServersForBackend,
  admissionOverlap,
  inflightTotal,
  serviceNodePortInRange,
  serviceAccountKeys,
  auditLog,
  auditWebhook,
];

export const apiServerFlagSet = defineFlagSet(API_SERVER_FLAGS, API_SERVER_RULES);

/** Parses the API server's argv (without node and script). Throws FlagError with a one-line message. */
export function parseApiServerOptions(argv: readonly string[]): ParseOutcome<ApiServerFlags> {
  return parseFlagSet(apiServerFlagSet, argv);
}

/** --service-cluster-ip-range as parsed CIDRs (one, or an IPv4 and an IPv6 one); empty when not given. */
export function serviceClusterIpRanges(options: Pick<ApiServerFlags, 'serviceClusterIpRange'>): ReturnType<typeof parseDualStackCidrs> {
  return options.serviceClusterIpRange ? parseDualStackCidrs(options.serviceClusterIpRange) : [];
}

/** --watch-cache-sizes as a map from `resource[.group]` to size. */
export function watchCacheSizes(options: Pick<ApiServerFlags, 'watchCacheSizes'>): Map<string, number> {
  return new Map(
    (options.watchCacheSizes ?? []).map((entry) => {
      const at = entry.lastIndexOf('#');
      return [entry.slice(0, at), Number(entry.slice(at + 1))];
    }),
  );
}

/** One `--store-servers-overrides` entry: the resource (group `""` for the core group) and its servers. */
export interface StoreServersOverride {
  group: string;
  resource: string;
  servers: string[];
}

/** --store-servers-overrides parsed (each entry already checked to be `group/resource#server;server`). */
export function storeServersOverrides(options: Pick<ApiServerFlags, 'storeServersOverrides'>): StoreServersOverride[] {
  return (options.storeServersOverrides ?? []).map((entry) => {
    const hash = entry.indexOf('#');
    const slash = entry.indexOf('/');
    return { group: entry.slice(0, slash), resource: entry.slice(slash + 1, hash), servers: entry.slice(hash + 1).split(';') };
  });
}

import { readFile } from 'node:fs/promises';
import type { Scheme } from '@svc/api';
import type { ApiServerFlags } from '@svc/options';
import { loadAuditPolicy, type AuditBackendSettings, type AuditOptions, type TokenWebhookOptions } from '@svc/apiserver';
import { parseConnectionFile } from '@svc/client';
import { encryptingStorage, loadEncryptionConfig, type Storage } from '@svc/storage';

// Kubernetes' defaults for a batch backend whose own flags leave them unset.
const DEFAULT_BATCH_MAX_WAIT_MS = 30_000;
const DEFAULT_THROTTLE_QPS = 10;
const DEFAULT_THROTTLE_BURST = 15;

/** The `--audit-*` flags as audit options, the policy and webhook files read; throws one line on a bad file. */
export async function auditOptionsFromFlags(o: ApiServerFlags): Promise<AuditOptions | undefined> {
  if (!o.auditPolicyFile) return undefined;
  const options: AuditOptions = { policy: loadAuditPolicy(o.auditPolicyFile) };
  if (o.auditLogPath) {
    options.log = {
      ...backendSettings({
        mode: o.auditLogMode,
        version: o.auditLogVersion,
        bufferSize: o.auditLogBatchBufferSize,
        maxSize: o.auditLogBatchMaxSize,
        maxWaitMs: o.auditLogBatchMaxWait,
        throttleEnable: o.auditLogBatchThrottleEnable,
        throttleQps: o.auditLogBatchThrottleQps,
        throttleBurst: o.auditLogBatchThrottleBurst,
        truncateEnabled: o.auditLogTruncateEnabled,
        truncateMaxBatchSize: o.auditLogTruncateMaxBatchSize,
        truncateMaxEventSize: o.auditLogTruncateMaxEventSize,
      }),
      path: o.auditLogPath,
      format: o.auditLogFormat,
      maxAgeDays: o.auditLogMaxage ?? 0,
      maxBackups: o.auditLogMaxbackup ?? 0,
      maxSizeMb: o.auditLogMaxsize ?? 0,
      compress: o.auditLogCompress ?? false,
    };
  }
  if (o.auditWebhookConfigFile) {
    const file = o.auditWebhookConfigFile;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new Error(`--audit-webhook-config-file: cannot read ${file}: ${(error as Error).message}`);
    }
    const client = await parseConnectionFile(text, file).catch((error: unknown) => {
      throw new Error(`--audit-webhook-config-file ${file}: ${(error as Error).message}`);
    });
    options.webhook = {
      ...backendSettings({
        mode: o.auditWebhookMode,
        version: o.auditWebhookVersion,
        bufferSize: o.auditWebhookBatchBufferSize,
        maxSize: o.auditWebhookBatchMaxSize,
        maxWaitMs: o.auditWebhookBatchMaxWait,
        throttleEnable: o.auditWebhookBatchThrottleEnable,
        throttleQps: o.auditWebhookBatchThrottleQps,
        throttleBurst: o.auditWebhookBatchThrottleBurst,
        truncateEnabled: o.auditWebhookTruncateEnabled,
        truncateMaxBatchSize: o.auditWebhookTruncateMaxBatchSize,
        truncateMaxEventSize: o.auditWebhookTruncateMaxEventSize,
      }),
      client,
      initialBackoffMs: o.auditWebhookInitialBackoff,
    };
  }
  return options;
}

function backendSettings(o: {
  mode: AuditBackendSettings['mode'];
  version: string;
  bufferSize: number;
  maxSize: number;
  maxWaitMs: number | undefined;
  throttleEnable: boolean | undefined;
  throttleQps: number | undefined;
  throttleBurst: number | undefined;
  truncateEnabled: boolean | undefined;
  truncateMaxBatchSize: number;
  truncateMaxEventSize: number;
}): AuditBackendSettings {
  return {
    mode: o.mode,
    version: o.version,
    batch: {
      bufferSize: o.bufferSize,
      maxSize: o.maxSize,
      maxWaitMs: o.maxWaitMs || DEFAULT_BATCH_MAX_WAIT_MS,
      throttle: o.throttleEnable ? { qps: o.throttleQps ?? DEFAULT_THROTTLE_QPS, burst: o.throttleBurst ?? DEFAULT_THROTTLE_BURST } : undefined,
    },
    truncate: o.truncateEnabled ? { maxEventSize: o.truncateMaxEventSize, maxBatchSize: o.truncateMaxBatchSize } : undefined,
  };
}

/** `--authentication-token-webhook-*`, the configuration file read; throws one line on a bad file. */
export async function tokenWebhookFromFlags(o: ApiServerFlags): Promise<TokenWebhookOptions | undefined> {
  const file = o.authenticationTokenWebhookConfigFile;
  if (!file) return undefined;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`--authentication-token-webhook-config-file: cannot read ${file}: ${(error as Error).message}`);
  }
  const client = await parseConnectionFile(text, file).catch((error: unknown) => {
    throw new Error(`--authentication-token-webhook-config-file ${file}: ${(error as Error).message}`);
  });
  if (!/^https?:\/\//.test(client.server))
    throw new Error(`--authentication-token-webhook-config-file ${file}: the cluster's server must be the webhook's http(s) URL`);
  return { client, cacheTtlMs: o.authenticationTokenWebhookCacheTtl, version: o.authenticationTokenWebhookVersion };
}

/** `--encryption-provider-config`: the store seen through the configured providers; throws one line on a bad file. */
export function encryptionFromFlags(o: ApiServerFlags, scheme: Scheme): ((storage: Storage) => Storage) | undefined {
  if (!o.encryptionProviderConfig) return undefined;
  const config = loadEncryptionConfig(o.encryptionProviderConfig);
  // A built-in resource's key does not name its group (Kubernetes' layout): the scheme does.
  const builtIn = scheme.all().filter((d) => d.source.type === 'builtin');
  const groups = new Map(builtIn.map((d) => [d.resource, d.group]));
  const builtInGroups = new Set(builtIn.map((d) => d.group));
  return (storage) =>
    encryptingStorage(
      storage,
      config,
      o.storePrefix,
      (resource) => groups.get(resource),
      (group) => builtInGroups.has(group),
    );
}

import type { ClientConfig } from '@svc/client';
import type { AuditBackend } from './audit-backend';
import { unionBackend } from './audit-backend';
import type { AuditRuntime } from './audit-filter';
import type { AuditPolicy } from './audit-policy';
import { bufferedBackend } from './buffered-backend';
import { logBackend } from './log-backend';
import { RotatingFile } from './rotating-file';
import { truncatingBackend } from './truncating-backend';
import { webhookBackend } from './webhook-backend';

export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';

/** The `--audit-<backend>-*` batch and truncate settings of one backend. */
export interface AuditBackendSettings {
  mode: AuditMode;
  /** Group and version of written events. */
  version: string;
  batch: { bufferSize: number; maxSize: number; maxWaitMs: number; throttle?: { qps: number; burst: number } };
  /** Present when truncation is on. */
  truncate?: { maxEventSize: number; maxBatchSize: number };
}

/** Audit as configured by flags; absent parts are off. Without a policy nothing is audited, as in Kubernetes. */
export interface AuditOptions {
  policy?: AuditPolicy;
  log?: AuditBackendSettings & {
    /** A file, or `-` for standard out. */
    path: string;
    format: 'json' | 'legacy';
    maxAgeDays: number;
    maxBackups: number;
    maxSizeMb: number;
    compress: boolean;
  };
  webhook?: AuditBackendSettings & { client: ClientConfig; initialBackoffMs: number };
}

/** Builds the backends in their modes; undefined when audit is off. */
export function createAuditRuntime(options: AuditOptions | undefined, warn: (message: string) => void): AuditRuntime | undefined {
  if (!options?.policy || (!options.log && !options.webhook)) return undefined;
  const backends: AuditBackend[] = [];
  if (options.log) {
    const log = options.log;
    const file = log.path === '-' ? undefined : new RotatingFile({ ...log, maxBackups: log.maxBackups, onError: (e) => warn(`audit log: ${String(e)}`) });
    const backend = logBackend({
      format: log.format,
      apiVersion: log.version,
      write: file ? (lines) => file.append(lines) : (lines) => void process.stdout.write(lines.join('')),
      close: file ? () => file.close() : undefined,
      onError: (e) => warn(`audit log ${log.path}: ${String(e)}`),
    });
    backends.push(inMode(backend, log, 'log', warn));
  }
  if (options.webhook) {
    const webhook = options.webhook;
    const backend = webhookBackend({ client: webhook.client, apiVersion: webhook.version, initialBackoffMs: webhook.initialBackoffMs, onError: warn });
    backends.push(inMode(backend, webhook, 'webhook', warn));
  }
  return { policy: options.policy, backend: unionBackend(backends) };
}

/** Kubernetes' order: truncate next to the sink, the buffer in front; only blocking-strict may fail a request. */
function inMode(backend: AuditBackend, settings: AuditBackendSettings, name: string, warn: (message: string) => void): AuditBackend {
  let wrapped = backend;
  if (settings.truncate) {
    wrapped = truncatingBackend(wrapped, {
      ...settings.truncate,
      onDiscard: (event, size) => warn(`audit ${name}: event ${event.auditID} of ${size} bytes discarded, larger than the limit even without its objects`),
    });
  }
  if (settings.mode === 'batch') {
    wrapped = bufferedBackend(wrapped, {
      bufferSize: settings.batch.bufferSize,
      maxBatchSize: settings.batch.maxSize,
      maxBatchWaitMs: settings.batch.maxWaitMs,
      throttle: settings.batch.throttle,
      onDrop: (n) => warn(`audit ${name}: buffer full, ${n} events dropped`),
    });
  }
  if (settings.mode === 'blocking-strict') return wrapped;
  const lenient = wrapped;
  return {
    processEvents(events) {
      const result = lenient.processEvents(events);
      return typeof result === 'boolean'
        ? true
        : result.then(
            () => true,
            () => true,
          );
    },
    shutdown: () => lenient.shutdown(),
  };
}

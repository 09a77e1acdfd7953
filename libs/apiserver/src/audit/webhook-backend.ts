import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ClientConfig } from '@svc/client';
import type { AuditBackend } from './audit-backend';
import { eventList, type AuditEvent } from './audit-event';

export interface WebhookBackendOptions {
  /** From the kubeconfig-format `--audit-webhook-config-file`. */
  client: ClientConfig;
  apiVersion: string;
  /** `--audit-webhook-initial-backoff`: wait before the first retry; later waits grow by 1.5. */
  initialBackoffMs: number;
  /** Attempts in all, Kubernetes' default backoff steps. */
  attempts?: number;
  /** One POST's deadline. */
  timeoutMs?: number;
  onError?(message: string): void;
}

const DEFAULT_ATTEMPTS = 5;
const DEFAULT_TIMEOUT_MS = 30_000;
/** A webhook answer is read only this far: it carries nothing the server needs. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs each batch as an EventList to the webhook named by the configuration file, retrying failed
 * attempts (connection errors, 5xx and 429) with growing waits. Used in batch mode behind the buffer,
 * or directly in the blocking modes, where the request waits for it.
 */
export function webhookBackend(options: WebhookBackendOptions): AuditBackend {
  const url = new URL(options.client.server);
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const inflight = new Set<AbortController>();
  let stopped = false;

  const post = (body: Buffer, signal: AbortSignal): Promise<number> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': body.length };
      if (options.client.token) headers.Authorization = `Bearer ${options.client.token}`;
      const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
      const req = send(
        url,
        {
          method: 'POST',
          headers,
          signal,
          timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          ca: options.client.ca,
          cert: options.client.clientCert,
          key: options.client.clientKey,
          rejectUnauthorized: !options.client.insecureSkipTlsVerify,
          servername: options.client.tlsServerName,
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) res.destroy();
          });
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('close', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('the audit webhook did not answer in time')));
      req.on('error', reject);
      req.end(body);
    });

  const deliver = async (events: AuditEvent[]): Promise<boolean> => {
    const body = Buffer.from(
      JSON.stringify(
        eventList(
          events.map((e) => ({ ...e, apiVersion: options.apiVersion })),
          options.apiVersion,
        ),
      ),
    );
    const controller = new AbortController();
    inflight.add(controller);
    let wait = options.initialBackoffMs;
    try {
      for (let attempt = 1; ; attempt++) {
        let problem: string;
        try {
          const code = await post(body, controller.signal);
          if (code >= 200 && code < 300) return true;
          problem = `answered ${code}`;
          if (code < 500 && code !== 429) break;
        } catch (error) {
          problem = (error as Error).message;
        }
        if (attempt >= attempts || stopped) {
          options.onError?.(`audit webhook ${url.origin}${url.pathname}: ${problem}; ${events.length} events lost`);
          return false;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait *= 1.5;
      }
      options.onError?.(`audit webhook ${url.origin}${url.pathname} refused ${events.length} events`);
      return false;
    } finally {
      inflight.delete(controller);
    }
  };

  return {
    processEvents: (events) => deliver(events),
    async shutdown() {
      stopped = true;
      for (const controller of inflight) controller.abort();
    },
  };
}

import type { WebhookClientConfig } from '@svc/api';
import { JsonPostError, postJson } from '../webhook-client/post-json';
import { endpointKey, type ResolvedService, type ServiceResolver } from './service-resolver';

/** The largest webhook response read; a longer one is a failed call. */
export const MAX_WEBHOOK_RESPONSE_BYTES = 3 * 1024 * 1024;

/** Why a call failed, in Kubernetes' words (`failed to call webhook: ...`). */
export class WebhookCallError extends Error {}

/** The URL a webhook is reached at; service references name in-cluster DNS this server cannot resolve. */
export function webhookUrl(config: WebhookClientConfig): URL {
  if (config.url !== undefined) {
    const url = new URL(config.url);
    if (url.protocol !== 'https:') throw new WebhookCallError(`webhook URL must use the https scheme: ${config.url}`);
    return url;
  }
  if (config.service !== undefined) {
    const { name, namespace, path, port } = config.service;
    return new URL(`https://${name}.${namespace}.svc:${port ?? 443}${path ?? '/'}`);
  }
  throw new WebhookCallError('webhook has neither a url nor a service');
}

/**
 * POSTs `body` (an AdmissionReview or ConversionReview) to the webhook over HTTPS, trusting its
 * caBundle (else the system's roots), and resolves with the parsed JSON answer. The whole call,
 * connection included, is bounded by `timeoutMs`, the answer by MAX_WEBHOOK_RESPONSE_BYTES and
 * MAX_NESTING_DEPTH.
 */
export async function callWebhook(config: WebhookClientConfig, body: unknown, timeoutMs: number, resolveService?: ServiceResolver): Promise<unknown> {
  let url: URL;
  try {
    url = webhookUrl(config);
  } catch (error) {
    throw error instanceof WebhookCallError ? error : new WebhookCallError(`invalid webhook URL: ${(error as Error).message}`);
  }
  const post = `Post "${url.toString()}"`;
  const deadline = Date.now() + timeoutMs;
  const failed = new Set<string>();
  let waits = 0;
  for (let attempt = 1; ; attempt++) {
    let target = url;
    let servername: string | undefined;
    if (config.url === undefined && config.service !== undefined) {
      if (resolveService === undefined) throw new WebhookCallError(`failed to call webhook: ${post}: service references cannot be resolved here`);
      let resolved: ResolvedService;
      try {
        resolved = await resolveService(config.service.namespace, config.service.name, config.service.port ?? 443, failed);
      } catch (error) {
        throw new WebhookCallError(`failed to call webhook: ${post}: ${(error as Error).message}`);
      }
      target = new URL(url.toString());
      target.hostname = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
      target.port = String(resolved.port);
      servername = resolved.serverName;
    }
    try {
      return await postReview(target, servername, config, body, Math.max(1, deadline - Date.now()));
    } catch (error) {
      const key = endpointKey({ host: target.hostname.replace(/^\[|\]$/g, ''), port: Number(target.port) });
      const fresh = !failed.has(key);
      failed.add(key);
      // Another endpoint is tried at once; the same one again only after the backoff's wait.
      const waitMs = config.service !== undefined && fresh ? 0 : jittered(RETRY_DELAYS_MS[waits] ?? Infinity);
      const retry = isConnectionFailure(error) && attempt <= RETRY_DELAYS_MS.length && Date.now() + waitMs < deadline;
      if (!retry) throw new WebhookCallError(`failed to call webhook: ${post}: ${(error as Error).message}`);
      if (waitMs > 0) {
        waits += 1;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }
}

/**
 * Waits between attempts on a connection that failed: Kubernetes' webhook backoff (0.5 s growing by
 * 1.5, jitter 0.2, 5 attempts), all within the webhook's timeout.
 */
const RETRY_DELAYS_MS = [500, 750, 1125, 1688];

function jittered(ms: number): number {
  return ms * (1 + 0.2 * Math.random());
}

/**
 * A connection refused, reset or closed before an answer: the review reached no webhook, or none
 * answered it (admission webhooks declare `sideEffects: None`, so sending it again is safe), and
 * another replica behind the Service, or the same one restarted, may take it. An answer, even a
 * 5xx, and a timeout are final, as in Kubernetes' admission dispatcher.
 */
function isConnectionFailure(error: unknown): boolean {
  return error instanceof JsonPostError && error.code !== undefined && CONNECTION_FAILURES.has(error.code);
}

const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

function postReview(url: URL, servername: string | undefined, config: WebhookClientConfig, body: unknown, timeoutMs: number): Promise<unknown> {
  const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  return postJson({ url, ca, servername }, body, { timeoutMs, maxResponseBytes: MAX_WEBHOOK_RESPONSE_BYTES });
}

import type { WebhookClientConfig } from '@svc/api';
import { postJson } from '../webhook-client/post-json';
import type { ResolvedService, ServiceResolver } from './service-resolver';

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
  let target = url;
  let servername: string | undefined;
  if (config.url === undefined && config.service !== undefined) {
    if (resolveService === undefined) throw new WebhookCallError(`failed to call webhook: ${post}: service references cannot be resolved here`);
    let resolved: ResolvedService;
    try {
      resolved = await resolveService(config.service.namespace, config.service.name, config.service.port ?? 443);
    } catch (error) {
      throw new WebhookCallError(`failed to call webhook: ${post}: ${(error as Error).message}`);
    }
    target = new URL(url.toString());
    target.hostname = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
    target.port = String(resolved.port);
    servername = resolved.serverName;
  }
  return postReview(target, servername, config, body, Math.max(1, deadline - Date.now()), post);
}

async function postReview(
  url: URL,
  servername: string | undefined,
  config: WebhookClientConfig,
  body: unknown,
  timeoutMs: number,
  post: string,
): Promise<unknown> {
  const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  try {
    return await postJson({ url, ca, servername }, body, { timeoutMs, maxResponseBytes: MAX_WEBHOOK_RESPONSE_BYTES });
  } catch (error) {
    throw new WebhookCallError(`failed to call webhook: ${post}: ${(error as Error).message}`);
  }
}

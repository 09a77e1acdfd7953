import { request as httpsRequest } from 'node:https';
import type { WebhookClientConfig } from '@svc/api';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '@svc/machinery';

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
export function callWebhook(config: WebhookClientConfig, body: unknown, timeoutMs: number): Promise<unknown> {
  let url: URL;
  try {
    url = webhookUrl(config);
  } catch (error) {
    return Promise.reject(error instanceof WebhookCallError ? error : new WebhookCallError(`invalid webhook URL: ${(error as Error).message}`));
  }
  const payload = Buffer.from(JSON.stringify(body));
  const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  const post = `Post "${url.toString()}"`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(new WebhookCallError(`failed to call webhook: ${post}: ${error.message}`));
      } else resolve(value);
    };
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        ca,
        agent: false,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_WEBHOOK_RESPONSE_BYTES) finish(new Error(`response body larger than ${MAX_WEBHOOK_RESPONSE_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('error', (error) => finish(error));
        res.on('end', () => {
          if (settled) return;
          const text = Buffer.concat(chunks);
          if (res.statusCode !== 200) {
            finish(new Error(`the server responded with status ${res.statusCode ?? 0}`));
            return;
          }
          if (jsonNestingDepth(text) > MAX_NESTING_DEPTH) {
            finish(new Error('response nests deeper than the limit'));
            return;
          }
          try {
            finish(undefined, JSON.parse(text.toString('utf8')));
          } catch {
            finish(new Error('response is not JSON'));
          }
        });
      },
    );
    const timer = setTimeout(() => finish(new Error('context deadline exceeded')), timeoutMs);
    req.on('error', (error) => finish(error));
    req.end(payload);
  });
}

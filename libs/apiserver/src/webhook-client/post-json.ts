import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ClientConfig } from '@svc/client';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '@svc/machinery';

/** Where a review goes and how the connection is made (a webhook's kubeconfig or its clientConfig). */
export interface JsonPostTarget {
  url: URL;
  /** Roots trusted for the server's certificate; the system's roots when absent. */
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  /** Name checked against the server's certificate, when it is not the URL's host. */
  servername?: string;
  insecureSkipTlsVerify?: boolean;
  bearerToken?: string;
}

/** The target a kubeconfig-format webhook file describes: its server, roots, client credentials and token. */
export function kubeconfigTarget(url: URL, client: ClientConfig): JsonPostTarget {
  return {
    url,
    ca: client.ca,
    cert: client.clientCert,
    key: client.clientKey,
    servername: client.tlsServerName,
    insecureSkipTlsVerify: client.insecureSkipTlsVerify,
    bearerToken: client.token,
  };
}

export interface JsonPostLimits {
  /** The whole call, connection included. */
  timeoutMs: number;
  /** The largest answer read; a longer one fails the call. */
  maxResponseBytes: number;
}

/**
 * Why a call failed. `retryable` is what Kubernetes' webhook backoff retries: no connection, no
 * answer in time, 429 and 5xx; a malformed or refused answer is final.
 */
export class JsonPostError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The system error code of a failed connection (`ECONNREFUSED`, `ECONNRESET`, ...). */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * POSTs `body` as JSON to a webhook (token review, access review, admission, conversion) and resolves
 * with its parsed 2xx answer. Size and nesting are checked before the answer is parsed.
 */
export function postJson(target: JsonPostTarget, body: unknown, limits: JsonPostLimits): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': payload.length };
  if (target.bearerToken) headers.Authorization = `Bearer ${target.bearerToken}`;
  const send = target.url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: JsonPostError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(value);
    };
    const options = {
      method: 'POST',
      headers,
      agent: false as const,
      ca: target.ca,
      cert: target.cert,
      key: target.key,
      servername: target.servername,
      rejectUnauthorized: target.insecureSkipTlsVerify !== true,
    };
    const req = send(target.url, options, (res) => readAnswer(res, limits.maxResponseBytes, finish));
    // Go's words for a call that ran out of time, as Kubernetes reports it.
    const timer = setTimeout(() => finish(new JsonPostError('context deadline exceeded', true)), limits.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish(new JsonPostError(error.message, true, error.code)));
    req.end(payload);
  });
}

/** Reads a 2xx answer of at most `maxBytes` and parses it (its nesting checked first); anything else fails the call. */
function readAnswer(res: IncomingMessage, maxBytes: number, finish: (error: JsonPostError | undefined, value?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) finish(new JsonPostError(`response body larger than ${maxBytes} bytes`, false));
    else chunks.push(chunk);
  });
  res.on('error', (error) => finish(new JsonPostError(error.message, true)));
  res.on('end', () => {
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) return finish(new JsonPostError(`the webhook answered ${code}`, code === 429 || code >= 500));
    const text = Buffer.concat(chunks);
    if (jsonNestingDepth(text) > MAX_NESTING_DEPTH) return finish(new JsonPostError('the answer is nested too deeply', false));
    try {
      finish(undefined, JSON.parse(text.toString('utf8')));
    } catch {
      finish(new JsonPostError('the answer is not JSON', false));
    }
  });
}

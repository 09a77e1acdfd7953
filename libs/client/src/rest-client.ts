import { readFile } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext } from 'node:tls';
import { isStatus, StatusError } from '@svc/machinery';
import { abortReason, systemClock, type Clock } from './clock';
import { JSON_MEDIA_TYPE, resolveClientConfig, type ClientConfig, type ResolvedClientConfig } from './client-config';
import { errorMessage, statusErrorFromResponse, TransportError, undecodableResponse } from './response-errors';
import { parseRetryAfter, retriableNetworkError, retriableResponse, type HttpMethod } from './retry-after';
import { TokenBucket } from './token-bucket';

export type QueryValue = string | number | boolean | undefined | null;

export interface RestRequest {
  method: HttpMethod;
  /** Absolute path below the server address, starting with `/`. */
  path: string;
  /** Parameters with an undefined or null value are left out. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON, or as is when a string. */
  body?: unknown;
  /** Content type of the body; JSON by default. */
  contentType?: string;
  /** The answer's media type; `application/json` by default (a JSON view such as `;as=PartialObjectMetadata`). */
  accept?: string;
  signal?: AbortSignal;
}

export interface RestClientOptions {
  /** Time source of the rate limiter and the retry waits. */
  clock?: Clock;
}

/** A read connection failure is retried after this long, as client-go does. */
const NETWORK_RETRY_DELAY_MS = 1_000;
/** client-go re-reads a token file at most this often. */
const TOKEN_FILE_CACHE_MS = 60_000;

async function readBody(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return text;
}

/**
 * The transport under every typed call: one keep-alive agent per client, a token bucket in
 * front of every attempt (retries included), retries of answers that ask for them, and errors
 * that are always StatusErrors. Every request says `Accept: application/json` (see
 * `ClientConfig.contentType` for why JSON only).
 */
export class RestClient {
  readonly config: ResolvedClientConfig;
  private readonly agent: HttpAgent;
  private readonly limiter?: TokenBucket;
  private readonly clock: Clock;
  private readonly baseUrl: URL;
  private cachedToken?: { value: string; readAt: number };

  constructor(config: ClientConfig, options: RestClientOptions = {}) {
    this.config = resolveClientConfig(config);
    this.clock = options.clock ?? systemClock;
    this.baseUrl = new URL(this.config.server);
    const c = this.config;
    this.agent =
      this.baseUrl.protocol === 'https:'
        ? new HttpsAgent({
            keepAlive: true,
            // One secure context for every connection: built per connection from ca/cert/key, it
            // parsed the certificates again each time (a sixth of a busy controller's CPU).
            secureContext: createSecureContext({ ca: c.ca, cert: c.clientCert, key: c.clientKey }),
            rejectUnauthorized: !c.insecureSkipTlsVerify,
            servername: c.tlsServerName,
          })
        : new HttpAgent({ keepAlive: true });
    if (c.qps > 0) this.limiter = new TokenBucket(c.qps, Math.max(1, c.burst), this.clock);
  }

  /** Sends a request and decodes the JSON answer; an empty answer is undefined. */
  async request<T>(req: RestRequest): Promise<T> {
    const res = await this.send(req, false);
    const body = await readBody(res).catch((err: unknown) => {
      throw this.failure(err, req.signal);
    });
    if (!body) return undefined as T;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      throw undecodableResponse(res.statusCode ?? 0, (err as Error).message, body);
    }
    // A success code with a failure Status is still a failure (client-go reads it the same way).
    if (isStatus(parsed) && parsed.status === 'Failure') throw statusErrorFromResponse(parsed.code ?? 500, body);
    return parsed as T;
  }

  /** Sends a request and returns the answer's text undecoded (health checks, `/version`, plain-text endpoints). */
  async requestText(req: RestRequest): Promise<string> {
    const res = await this.send(req, false);
    return readBody(res).catch((err: unknown) => {
      throw this.failure(err, req.signal);
    });
  }

  /**
   * Sends a request whose answer is read as a stream (a watch); resolves once a 2xx answer's
   * headers arrived. The client deadline does not apply to the stream; the signal does.
   */
  async stream(req: RestRequest): Promise<IncomingMessage> {
    return this.send(req, true);
  }

  /** Closes idle keep-alive connections; open streams are not touched. */
  close(): void {
    this.agent.destroy();
  }

  url(path: string, query?: Record<string, QueryValue>): URL {
    const url = new URL(this.baseUrl.toString());
    url.pathname = `${this.baseUrl.pathname.replace(/\/+$/, '')}${path}`;
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.append(key, String(value));
    }
    return url;
  }

  private async send(req: RestRequest, streaming: boolean): Promise<IncomingMessage> {
    const { signal } = req;
    const payload = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw abortReason(signal);
      await this.limiter?.wait(signal);
      let res: IncomingMessage;
      try {
        res = await this.attempt(req, payload, streaming);
      } catch (err) {
        if (signal?.aborted) throw abortReason(signal);
        if (attempt < this.config.maxRetries && !(err instanceof TransportError) && retriableNetworkError(req.method, err)) {
          await this.clock.sleep(NETWORK_RETRY_DELAY_MS, signal);
          continue;
        }
        throw this.failure(err, signal);
      }
      const code = res.statusCode ?? 0;
      if (code >= 200 && code < 300) return res;
      const body = await readBody(res).catch(() => '');
      const retryAfter = parseRetryAfter(res.headers['retry-after']);
      if (attempt < this.config.maxRetries && retriableResponse(req.method, code, retryAfter)) {
        await this.clock.sleep(Math.min((retryAfter ?? 0) * 1000, this.config.maxRetryWaitMs), signal);
        continue;
      }
      throw statusErrorFromResponse(code, body, retryAfter);
    }
  }

  private failure(err: unknown, signal?: AbortSignal): unknown {
    if (signal?.aborted) return abortReason(signal);
    if (err instanceof StatusError) return err;
    return new TransportError('connection', `cannot reach the API server at ${this.config.server}: ${errorMessage(err)}`, err);
  }

  private async headers(req: RestRequest, payload: string | undefined): Promise<OutgoingHttpHeaders> {
    const headers: OutgoingHttpHeaders = { Accept: req.accept ?? JSON_MEDIA_TYPE, 'User-Agent': this.config.userAgent };
    if (payload !== undefined) {
      headers['Content-Type'] = req.contentType ?? JSON_MEDIA_TYPE;
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    const token = await this.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    else if (this.config.username && this.config.password) {
      headers.Authorization = `Basic ${Buffer.from(`${this.config.username}:${this.config.password}`).toString('base64')}`;
    }
    return headers;
  }

  private async token(): Promise<string | undefined> {
    if (this.config.token) return this.config.token;
    if (!this.config.tokenFile) return undefined;
    const now = this.clock.now();
    if (this.cachedToken && now - this.cachedToken.readAt < TOKEN_FILE_CACHE_MS) return this.cachedToken.value;
    try {
      const value = (await readFile(this.config.tokenFile, 'utf8')).trim();
      this.cachedToken = { value, readAt: now };
      return value;
    } catch (err) {
      // A token that was readable once stays in use while the file is being replaced.
      if (this.cachedToken) return this.cachedToken.value;
      throw new TransportError('connection', `cannot read token file ${this.config.tokenFile}: ${errorMessage(err)}`, err);
    }
  }

  private async attempt(req: RestRequest, payload: string | undefined, streaming: boolean): Promise<IncomingMessage> {
    const url = this.url(req.path, req.query);
    const headers = await this.headers(req, payload);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const timeoutMs = this.config.timeoutMs;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const clientRequest = send(url, { method: req.method, headers, agent: this.agent });
      let timer: NodeJS.Timeout | undefined;
      let response: IncomingMessage | undefined;
      const onAbort = () => clientRequest.destroy(abortReason(req.signal!) as Error);
      const cleanupRequest = () => {
        if (timer) clearTimeout(timer);
        timer = undefined;
      };
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          const err = new TransportError('timeout', `the request to ${url.pathname} got no answer within ${timeoutMs}ms`);
          // Once headers are in, the body read is what waits: fail it with the same error.
          if (response) response.destroy(err);
          clientRequest.destroy(err);
        }, timeoutMs);
      }
      req.signal?.addEventListener('abort', onAbort, { once: true });
      clientRequest.on('error', (err) => {
        cleanupRequest();
        req.signal?.removeEventListener('abort', onAbort);
        reject(err);
      });
      clientRequest.on('response', (res) => {
        response = res;
        const detach = () => req.signal?.removeEventListener('abort', onAbort);
        if (streaming) cleanupRequest();
        // A non-stream answer stays under the deadline until its body is read.
        res.on('end', () => {
          cleanupRequest();
          detach();
        });
        res.on('close', () => {
          cleanupRequest();
          detach();
        });
        resolve(res);
      });
      clientRequest.end(payload);
    });
  }
}

import { readFile } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext } from 'node:tls';
import { isStatus, StatusError } from '@svc/machinery';
import { abortReason, systemClock, type Clock } from './clock';
import { JSON_MEDIA_TYPE, resolveClientConfig, type ClientConfig, type ResolvedClientConfig } from './client-config';
import { errorMessage, statusErrorFromResponse, TransportError, undecodableResponse } from './response-errors';
import { decodeAnswer, errorAnswerText } from './wire-codec';
import { parseRetryAfter, retriableNetworkError, retriableResponse, type HttpMethod } from './retry-after';
import { TokenBucket } from './token-bucket';
import { ServedGroupNames } from './served-group-names';

export type QueryValue = string | number | boolean | undefined | null;

export interface RestRequest {
  method: HttpMethod;
  /** Absolute path below the server address, starting with `/`. */
  path: string;
  /** Parameters with an undefined or null value are left out. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON, or as is when a string or bytes (a protobuf body). */
  body?: unknown;
  /** Content type of the body; JSON by default. */
  contentType?: string;
  /**
   * The answer's media types; `application/json` by default (a JSON view such as
   * `;as=PartialObjectMetadata`, or protobuf with a JSON fallback). The answer is decoded by the
   * Content-Type the server chose.
   */
  accept?: string;
  /** Cancels the request wherever it is: an aborted write may have taken effect or not. */
  signal?: AbortSignal;
  /**
   * Withdraws the request only where that cannot leave its outcome unknown: a request not yet sent
   * (waiting for the rate limiter, or between retries) and a read are stopped at once; a write
   * already sent runs to its answer, so the caller learns whether it took effect. A withdrawn
   * request fails with a `withdrawn` TransportError (`isWithdrawn`) and had no effect.
   */
  withdraw?: AbortSignal;
}

export interface RestClientOptions {
  /** Time source of the rate limiter and the retry waits. */
  clock?: Clock;
  /**
   * Asked as each write (any method but GET) starts: a signal that withdraws it (see
   * `RestRequest.withdraw`). Reads are left alone, so that a watch or list started on behalf of a
   * caller is never stopped by it. The operator framework answers with the signal of the reconcile
   * the write is made in, so that a reconcile whose leadership ended can write no more.
   */
  writeWithdrawal?: () => AbortSignal | undefined;
}

/** No connection was made: the request was never sent, whatever its method. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** The server cannot be reached now: another one is tried. */
const UNREACHABLE = new Set([...NEVER_CONNECTED, 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : undefined;
}

function neverConnected(err: unknown): boolean {
  return NEVER_CONNECTED.has(errorCode(err) ?? '');
}

function serverUnreachable(err: unknown): boolean {
  return UNREACHABLE.has(errorCode(err) ?? '');
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

async function readBytes(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** An error answer's body as text, a protobuf Status read into its JSON. */
async function readErrorBody(res: IncomingMessage): Promise<string> {
  return errorAnswerText(await readBytes(res), res.headers['content-type']);
}

/** A request body's bytes or text: as is when a string or bytes, JSON otherwise. */
function requestPayload(body: unknown): string | Buffer | undefined {
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return JSON.stringify(body);
}

/** The withdrawal that may stop a request on the wire: only a read's. */
function readWithdrawal(req: RestRequest): AbortSignal | undefined {
  return req.method === 'GET' ? req.withdraw : undefined;
}

/** What cuts a sent request off: its signal, and for a read its withdrawal too. */
function onWireSignal(req: RestRequest): AbortSignal | undefined {
  const withdraw = readWithdrawal(req);
  return req.signal && withdraw ? AbortSignal.any([req.signal, withdraw]) : (req.signal ?? withdraw);
}

/**
 * The transport under every typed call: one keep-alive agent per client, a token bucket in
 * front of every attempt (retries included), retries of answers that ask for them, and errors
 * that are always StatusErrors. A request asks for JSON unless it says otherwise (the resource
 * clients ask for protobuf where `ClientConfig.contentType` says so); an answer is decoded by its
 * Content-Type, JSON or a protobuf envelope.
 */
export class RestClient {
  readonly config: ResolvedClientConfig;
  private agent: HttpAgent;
  private readonly limiter?: TokenBucket;
  private readonly clock: Clock;
  private readonly writeWithdrawal?: () => AbortSignal | undefined;
  /** The server and its alternatives (`ClientConfig.servers`); requests go to `baseUrls[current]`. */
  private readonly baseUrls: URL[];
  private current = 0;
  private cachedToken?: { value: string; readAt: number };
  /** The names this server gives the built-in `*.svc.io` groups (Kubernetes' `*.k8s.io` only, on a Kubernetes cluster). */
  readonly groupNames = new ServedGroupNames(async () => {
    const list = await this.request<{ groups?: Array<{ name?: string }> }>({ method: 'GET', path: '/apis' });
    return (list?.groups ?? []).map((g) => g.name ?? '');
  });

  constructor(config: ClientConfig, options: RestClientOptions = {}) {
    this.config = resolveClientConfig(config);
    this.clock = options.clock ?? systemClock;
    this.writeWithdrawal = options.writeWithdrawal;
    this.baseUrls = [this.config.server, ...(this.config.servers ?? [])].map((server) => new URL(server));
    const c = this.config;
    this.agent = this.newAgent();
    if (c.qps > 0) this.limiter = new TokenBucket(c.qps, Math.max(1, c.burst), this.clock);
  }

  /** Sends a request and decodes the answer (JSON or protobuf, by its Content-Type); an empty answer is undefined. */
  async request<T>(req: RestRequest): Promise<T> {
    const res = await this.send(req, false);
    const body = await readBytes(res).catch((err: unknown) => {
      throw this.failure(err, req.signal, readWithdrawal(req));
    });
    if (body.length === 0) return undefined as T;
    let parsed: unknown;
    try {
      parsed = decodeAnswer(body, res.headers['content-type']);
    } catch (err) {
      throw undecodableResponse(res.statusCode ?? 0, (err as Error).message, errorAnswerText(body, undefined));
    }
    // A success code with a failure Status is still a failure (client-go reads it the same way).
    if (isStatus(parsed) && parsed.status === 'Failure') throw statusErrorFromResponse(parsed.code ?? 500, JSON.stringify(parsed));
    return parsed as T;
  }

  /** Sends a request and returns the answer's text undecoded (health checks, `/version`, plain-text endpoints). */
  async requestText(req: RestRequest): Promise<string> {
    const res = await this.send(req, false);
    return readBody(res).catch((err: unknown) => {
      throw this.failure(err, req.signal, readWithdrawal(req));
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

  private newAgent(): HttpAgent {
    const c = this.config;
    return this.baseUrls[0].protocol === 'https:'
      ? new HttpsAgent({
          keepAlive: true,
          // One secure context for every connection: built per connection from ca/cert/key, it
          // parsed the certificates again each time (a sixth of a busy controller's CPU).
          secureContext: createSecureContext({ ca: c.ca, cert: c.clientCert, key: c.clientKey }),
          rejectUnauthorized: !c.insecureSkipTlsVerify,
          servername: c.tlsServerName,
        })
      : new HttpAgent({ keepAlive: true });
  }

  /**
   * Authenticates with another client certificate from now on (a rotated one, as client-go's
   * certificate manager hands it over): new requests connect with it; requests in flight finish on
   * their connections, which then close, and long-running ones (watches) are cut after `drainMs`
   * so that they reconnect with the new certificate, as client-go closes them.
   */
  useClientCertificate(certPem: string, keyPem: string, drainMs = 30_000): void {
    this.config.clientCert = certPem;
    this.config.clientKey = keyPem;
    const previous = this.agent;
    this.agent = this.newAgent();
    // Idle sockets go now; busy ones close when their request ends (keep-alive off from here).
    (previous as unknown as { keepAlive: boolean }).keepAlive = false;
    for (const sockets of Object.values(previous.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    setTimeout(() => previous.destroy(), drainMs).unref();
  }

  /** The server requests go to now. */
  get baseUrl(): URL {
    return this.baseUrls[this.current];
  }

  url(path: string, query?: Record<string, QueryValue>): URL {
    const url = new URL(this.baseUrl.toString());
    url.pathname = `${this.baseUrl.pathname.replace(/\/+$/, '')}${path}`;
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.append(key, String(value));
    }
    return url;
  }

  private async send(original: RestRequest, streaming: boolean): Promise<IncomingMessage> {
    const ambient = original.method === 'GET' ? undefined : this.writeWithdrawal?.();
    const withdraw = original.withdraw && ambient ? AbortSignal.any([original.withdraw, ambient]) : (original.withdraw ?? ambient);
    const req: RestRequest = { ...original, withdraw };
    const { signal } = req;
    // Until it is sent, either signal stops the request; on the wire, a withdrawal stops only a read.
    const unsent = signal && withdraw ? AbortSignal.any([signal, withdraw]) : (signal ?? withdraw);
    const payload = requestPayload(req.body);
    const stopped = (err?: unknown) => this.failure(err, signal, withdraw);
    for (let attempt = 0; ; attempt++) {
      if (unsent?.aborted) throw stopped();
      try {
        await this.limiter?.wait(unsent);
      } catch (err) {
        throw stopped(err);
      }
      // The token may come in the same turn as the abort.
      if (unsent?.aborted) throw stopped();
      let res: IncomingMessage;
      const server = this.current;
      try {
        res = await this.attempt(req, payload, streaming);
      } catch (err) {
        if (signal?.aborted || readWithdrawal(req)?.aborted) throw stopped(err);
        if (this.baseUrls.length > 1 && !(err instanceof TransportError) && serverUnreachable(err)) {
          // Move on from a server that is gone (unless another request did already), and send the
          // request there if it cannot have taken effect here.
          if (this.current === server) this.current = (server + 1) % this.baseUrls.length;
          if (attempt < this.config.maxRetries + this.baseUrls.length && (neverConnected(err) || retriableNetworkError(req.method, err))) continue;
        }
        if (attempt < this.config.maxRetries && !(err instanceof TransportError) && retriableNetworkError(req.method, err)) {
          await this.clock.sleep(NETWORK_RETRY_DELAY_MS, unsent).catch((e: unknown) => {
            throw stopped(e);
          });
          continue;
        }
        throw this.failure(err, signal);
      }
      const code = res.statusCode ?? 0;
      if (code >= 200 && code < 300) return res;
      const body = await readErrorBody(res).catch(() => '');
      const retryAfter = parseRetryAfter(res.headers['retry-after']);
      if (attempt < this.config.maxRetries && retriableResponse(req.method, code, retryAfter)) {
        await this.clock.sleep(Math.min((retryAfter ?? 0) * 1000, this.config.maxRetryWaitMs), unsent).catch((e: unknown) => {
          throw stopped(e);
        });
        continue;
      }
      throw statusErrorFromResponse(code, body, retryAfter);
    }
  }

  /** The caller's own abort wins; a withdrawal is a `withdrawn` TransportError. */
  private failure(err: unknown, signal?: AbortSignal, withdraw?: AbortSignal): unknown {
    if (signal?.aborted) return abortReason(signal);
    if (withdraw?.aborted) return new TransportError('withdrawn', `request withdrawn: ${errorMessage(abortReason(withdraw))}`, err);
    if (err instanceof StatusError) return err;
    return new TransportError('connection', `cannot reach the API server at ${this.baseUrl.origin}: ${errorMessage(err)}`, err);
  }

  private async headers(req: RestRequest, payload: string | Buffer | undefined): Promise<OutgoingHttpHeaders> {
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
    if (this.config.tokenSource) {
      try {
        return await this.config.tokenSource();
      } catch (err) {
        throw new TransportError('connection', `cannot get a bearer token: ${errorMessage(err)}`, err);
      }
    }
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

  private async attempt(req: RestRequest, payload: string | Buffer | undefined, streaming: boolean): Promise<IncomingMessage> {
    const url = this.url(req.path, req.query);
    const headers = await this.headers(req, payload);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const timeoutMs = this.config.timeoutMs;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const clientRequest = send(url, { method: req.method, headers, agent: this.agent });
      let timer: NodeJS.Timeout | undefined;
      let response: IncomingMessage | undefined;
      const cancel = onWireSignal(req);
      const onAbort = () => clientRequest.destroy(abortReason(cancel!) as Error);
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
      cancel?.addEventListener('abort', onAbort, { once: true });
      clientRequest.on('error', (err) => {
        cleanupRequest();
        cancel?.removeEventListener('abort', onAbort);
        reject(err);
      });
      clientRequest.on('response', (res) => {
        response = res;
        const detach = () => cancel?.removeEventListener('abort', onAbort);
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

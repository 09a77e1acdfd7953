import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';

export type Query = Record<string, string | number | boolean | undefined>;

export interface ApiRequestOptions {
  query?: Query;
  /** Serialized as JSON unless it is already a string or Buffer. */
  body?: unknown;
  /** `application/json` by default when there is a body. */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse<T> {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body when it is JSON; otherwise undefined. */
  body: T;
}

export interface WatchEventOf<T> {
  type: string;
  object: T;
}

/** Appends `?k=v&...` for the defined entries; a `true` value becomes the bare key's `true`. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.append(key, String(value));
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

function encodeBody(body: unknown): string | Buffer | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return JSON.stringify(body);
}

function parseJson(text: string, contentType: string | undefined): unknown {
  if (!text || !contentType?.includes('json')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A minimal HTTPS client for the API server under test: JSON in and out, certificate verification
 * against the server's CA, keep-alive for ordinary requests and a connection of its own per watch.
 */
export class ApiClient {
  private readonly agent: Agent;
  private readonly watches = new Set<WatchStream<unknown>>();

  constructor(
    readonly baseUrl: string,
    private readonly ca: string,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 16, ca });
  }

  request<T = unknown>(method: string, path: string, options: ApiRequestOptions = {}): Promise<ApiResponse<T>> {
    const body = encodeBody(options.body);
    const headers: Record<string, string | number> = { Accept: 'application/json', ...options.headers };
    if (body !== undefined) {
      headers['Content-Type'] = options.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest(`${this.baseUrl}${withQuery(path, options.query)}`, { method, headers, ca: this.ca, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parseJson(text, res.headers['content-type']) as T });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  get<T = unknown>(path: string, query?: Query, headers?: Record<string, string>): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, { query, headers });
  }

  post<T = unknown>(path: string, body: unknown, query?: Query): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, { body, query });
  }

  put<T = unknown>(path: string, body: unknown, query?: Query): Promise<ApiResponse<T>> {
    return this.request<T>('PUT', path, { body, query });
  }

  patch<T = unknown>(path: string, contentType: string, body: unknown, query?: Query): Promise<ApiResponse<T>> {
    return this.request<T>('PATCH', path, { body, contentType, query });
  }

  delete<T = unknown>(path: string, query?: Query, body?: unknown): Promise<ApiResponse<T>> {
    return this.request<T>('DELETE', path, { query, body });
  }

  /** Opens a watch (`watch=1` is added) and resolves once the response headers arrived. */
  watch<T = unknown>(path: string, query: Query = {}): Promise<WatchStream<T>> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        `${this.baseUrl}${withQuery(path, { ...query, watch: 1 })}`,
        { method: 'GET', headers: { Accept: 'application/json' }, ca: this.ca, agent: false },
        (res) => {
          const stream = new WatchStream<T>(res.statusCode ?? 0, res.headers, () => req.destroy());
          this.watches.add(stream);
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => stream.push(chunk));
          res.on('end', () => stream.end());
          res.on('close', () => stream.end());
          res.on('error', () => stream.end());
          resolve(stream);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** Closes every watch opened through this client and the keep-alive connections. */
  close(): void {
    for (const watch of this.watches) watch.close();
    this.watches.clear();
    this.agent.destroy();
  }
}

/** The events of one watch response, parsed as they arrive. */
export class WatchStream<T> {
  readonly events: Array<WatchEventOf<T>> = [];
  /** Raw body text received so far (for diagnostics). */
  raw = '';
  ended = false;
  private buffer = '';
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly abort: () => void,
  ) {}

  push(text: string): void {
    this.raw += text;
    const { docs, rest } = splitJsonDocuments(this.buffer + text);
    this.buffer = rest;
    for (const doc of docs) this.events.push(doc as WatchEventOf<T>);
    this.notify();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.notify();
  }

  close(): void {
    this.abort();
    this.end();
  }

  /**
   * Waits until the events received satisfy `done` (given all events so far), the stream ends, or the
   * time is up; returns the events either way so the caller's assertion shows what came.
   */
  async waitFor(done: (events: Array<WatchEventOf<T>>) => boolean, timeoutMs = 10_000): Promise<Array<WatchEventOf<T>>> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.events) && !this.ended) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await new Promise<void>((resolve) => {
        const listener = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          this.listeners.delete(listener);
          resolve();
        }, remaining);
        this.listeners.add(listener);
      });
    }
    return [...this.events];
  }

  /** Waits for `count` events in all (not counting none), or fewer when the stream ends or time is up. */
  waitForCount(count: number, timeoutMs = 10_000): Promise<Array<WatchEventOf<T>>> {
    return this.waitFor((events) => events.length >= count, timeoutMs);
  }

  /** Waits until the server ends the stream; resolves with whether it did within the time. */
  async waitForEnd(timeoutMs: number): Promise<boolean> {
    await this.waitFor(() => false, timeoutMs);
    return this.ended;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) {
      this.listeners.delete(listener);
      listener();
    }
  }
}

/** Splits complete JSON values off the front of a watch body (newline-separated or not). */
export function splitJsonDocuments(text: string): { docs: unknown[]; rest: string } {
  const docs: unknown[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  let consumed = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0 && start >= 0) {
        docs.push(JSON.parse(text.slice(start, i + 1)));
        consumed = i + 1;
        start = -1;
      }
    }
  }
  return { docs, rest: text.slice(consumed) };
}

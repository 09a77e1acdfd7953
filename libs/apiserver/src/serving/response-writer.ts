import type { ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';
import type { Status } from '../status/status';

/** Header values as Node takes them. */
export type HeaderValues = Record<string, string | number | readonly string[]>;

/**
 * Kubernetes' APIResponseCompression (on by default since 1.16): a body larger than this is gzipped
 * for a client that accepts it; smaller ones cost more to compress than they save.
 */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
// Kubernetes compresses at level 1: most of the ratio of higher levels at a fraction of the CPU.
const GZIP_LEVEL = 1;
const WARNINGS_MAX_RUNES = 4 * 1024;
const WARNING_TRUNCATED_RUNES = 256;

const WRITER = Symbol('responseWriter');

/**
 * The one way a request is answered, for the filters and every route: a whole answer (`end`, `status`),
 * or a stream the handler writes itself (`stream`, for watches and proxied connections). When the
 * request runs out of time the timeout filter answers 504 through `timeOut` (Kubernetes' timeout
 * writer): the handler is told through the request's signal, and whatever it still writes is dropped
 * here, so a late answer never reaches a client that was already answered.
 */
export class ResponseWriter {
  private timedOutAt: number | undefined;

  private constructor(readonly raw: ServerResponse) {}

  /** The writer of a response, made on first use: every filter and route of one request shares it. */
  static of(res: ServerResponse): ResponseWriter {
    const carrier = res as ServerResponse & { [WRITER]?: ResponseWriter };
    return (carrier[WRITER] ??= new ResponseWriter(res));
  }

  /** True once the timeout filter answered: what the handler writes goes nowhere. */
  get timedOut(): boolean {
    return this.timedOutAt !== undefined;
  }

  /** True while an answer can still start: not timed out, nothing sent. */
  get open(): boolean {
    return this.timedOutAt === undefined && !this.raw.headersSent && !this.raw.writableEnded;
  }

  get headersSent(): boolean {
    return this.raw.headersSent;
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    if (this.open) this.raw.setHeader(name, value);
    return this;
  }

  getHeader(name: string): ReturnType<ServerResponse['getHeader']> {
    return this.raw.getHeader(name);
  }

  /** Adds `Warning` header values (Kubernetes' warning recorder: each text once, bounded), keeping those already set. */
  addWarnings(warnings: readonly string[]): this {
    if (warnings.length === 0 || !this.open) return this;
    const existing = this.raw.getHeader('Warning');
    const values = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
    this.raw.setHeader('Warning', [...values, ...boundedWarnings(warnings).map(warningHeaderValue)]);
    return this;
  }

  /**
   * Answers with a whole body: gzipped (`Content-Encoding: gzip`, `Vary: Accept-Encoding`, no length)
   * when it exceeds the threshold and the request accepts gzip, as it is otherwise; none for HEAD.
   * Does nothing once an answer started or the request timed out. `compress: false` sends the body as
   * it is (one already compressed, or a page whose secrets must not share a compressed stream).
   */
  end(code: number, body: Buffer | string | undefined, headers: HeaderValues = {}, options: { compress?: boolean } = {}): void {
    if (!this.open) return;
    const res = this.raw;
    res.statusCode = code;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (body === undefined) {
      res.end();
      return;
    }
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    const request = res.req as ServerResponse['req'] | undefined;
    if (
      options.compress === false ||
      length <= GZIP_THRESHOLD_BYTES ||
      request === undefined ||
      request.method === 'HEAD' ||
      !acceptsGzip(request.headers['accept-encoding'])
    ) {
      res.setHeader('Content-Length', length);
      res.end(request?.method === 'HEAD' ? undefined : body);
      return;
    }
    endGzipped(res, body);
  }

  /**
   * Answers with a Status body (JSON), its retry hint as `Retry-After`. Half an answer cannot become an
   * error any more: then the connection is cut, the only honest signal.
   */
  status(status: Status, headers: HeaderValues = {}): void {
    if (this.timedOutAt !== undefined || this.raw.writableEnded) return;
    if (this.raw.headersSent) {
      this.raw.destroy();
      return;
    }
    const retryAfter = status.details?.retryAfterSeconds;
    // Kubernetes turns a Status's retry hint into the header clients act on.
    if (retryAfter !== undefined && retryAfter > 0) this.raw.setHeader('Retry-After', String(retryAfter));
    this.end(status.code ?? 500, JSON.stringify(status), { ...headers, 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' });
  }

  /**
   * The response to stream through (a watch, a proxied or upgraded connection), or undefined when the
   * request already timed out. The caller writes status, headers and body itself.
   */
  stream(): ServerResponse | undefined {
    return this.timedOutAt === undefined ? this.raw : undefined;
  }

  /**
   * The timeout filter's answer: `status` (504) for a handler that has not answered, a cut connection
   * for one that started to; from now on the handler's writes are dropped.
   */
  timeOut(status: Status): void {
    if (this.raw.writableEnded || this.timedOutAt !== undefined) return;
    if (this.raw.headersSent) {
      this.timedOutAt = Date.now();
      this.raw.destroy();
      return;
    }
    this.status(status);
    this.timedOutAt = Date.now();
  }
}

/** `299 - "<text>"`, the Warning header value Kubernetes sends (text quoted and escaped). */
export function warningHeaderValue(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

/**
 * Kubernetes' warning recorder: repeated texts once; up to 4096 characters in all, and past that
 * each text cut to 256 characters and no more added once 4096 are written. A body with a few
 * hundred thousand unknown fields would otherwise make a header no client reads.
 */
export function boundedWarnings(warnings: readonly string[]): string[] {
  const unique = [...new Set(warnings)];
  let written = 0;
  for (const text of unique) {
    // Code units bound characters from above: the exact count only near the limit.
    written += text.length > WARNINGS_MAX_RUNES ? WARNINGS_MAX_RUNES + 1 : [...text].length;
    if (written > WARNINGS_MAX_RUNES) break;
  }
  if (written <= WARNINGS_MAX_RUNES) return unique;
  const kept: string[] = [];
  written = 0;
  for (const text of unique) {
    if (written >= WARNINGS_MAX_RUNES) break;
    const chars = [...text];
    kept.push(chars.length > WARNING_TRUNCATED_RUNES ? chars.slice(0, WARNING_TRUNCATED_RUNES).join('') : text);
    written += Math.min(chars.length, WARNING_TRUNCATED_RUNES);
  }
  return kept;
}

/**
 * Whether an `Accept-Encoding` header names gzip, read as Kubernetes' negotiateContentEncoding does:
 * comma-separated tokens compared whole after trimming, so `gzip;q=0.5` is not taken and `*` is not gzip.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  return value.split(',').some((token) => token.trim() === 'gzip');
}

function endGzipped(res: ServerResponse, body: Buffer | string): void {
  res.removeHeader('Content-Length');
  res.setHeader('Content-Encoding', 'gzip');
  res.appendHeader('Vary', 'Accept-Encoding');
  const gzip = createGzip({ level: GZIP_LEVEL });
  gzip.on('error', () => res.destroy());
  res.once('close', () => {
    if (!res.writableFinished) gzip.destroy();
  });
  gzip.pipe(res);
  gzip.end(body);
}

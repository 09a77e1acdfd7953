import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ResponseWriter } from '../serving/response-writer';

export interface WriteJsonOptions {
  contentType?: string;
  headers?: Record<string, string>;
  /** An entity tag to use instead of one hashed from the body. */
  etag?: string;
}

/** A strong entity tag over a response body. */
export function bodyEtag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('hex')}"`;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * Writes a JSON document with an `ETag`, answering 304 when the client already holds it: discovery
 * and OpenAPI documents are fetched often and change rarely (client-go's HTTP cache revalidates them).
 */
export function writeJson(req: IncomingMessage, res: ResponseWriter, body: string | Buffer, options: WriteJsonOptions = {}): void {
  const etag = options.etag ?? bodyEtag(body);
  const headers = { ...options.headers, ETag: etag, Vary: 'Accept' };
  if (matches(req.headers['if-none-match'], etag)) return res.end(304, undefined, headers);
  res.end(200, body, { ...headers, 'Content-Type': options.contentType ?? 'application/json', 'X-Content-Type-Options': 'nosniff' });
}

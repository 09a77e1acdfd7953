import type { ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';

/**
 * Kubernetes' APIResponseCompression (on by default since 1.16): a body larger than this is gzipped
 * for a client that accepts it; smaller ones cost more to compress than they save.
 */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

// Kubernetes compresses at level 1: most of the ratio of higher levels at a fraction of the CPU.
const GZIP_LEVEL = 1;

/**
 * Whether an `Accept-Encoding` header names gzip, read as Kubernetes' negotiateContentEncoding does:
 * comma-separated tokens compared whole after trimming, so `gzip;q=0.5` is not taken and `*` is not gzip.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  return value.split(',').some((token) => token.trim() === 'gzip');
}

/**
 * Ends a response with its whole body: gzipped (`Content-Encoding: gzip`, `Vary: Accept-Encoding`, no
 * length) when the body exceeds the threshold and the request accepts gzip, as is otherwise. Watch
 * streams and proxied answers never come here: Kubernetes 1.32 compresses neither.
 */
export function endWithBody(res: ServerResponse, body: Buffer | string): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const request = res.req as ServerResponse['req'] | undefined;
  if (length <= GZIP_THRESHOLD_BYTES || request === undefined || request.method === 'HEAD' || !acceptsGzip(request.headers['accept-encoding'])) {
    res.setHeader('Content-Length', length);
    res.end(body);
    return;
  }
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

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { acceptsGzip } from '../resources/response-compression';
import { requestUrl } from '../request/request-context';

/** Where the web console is served. */
export const CONSOLE_PATH = '/console/';

/** What the built console's index.html holds where each response puts its own style nonce. */
export const CONSOLE_NONCE_PLACEHOLDER = '__CSP_NONCE__';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/** Files above this are not held in memory: a console build is a few hundred KiB in all. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

interface ConsoleFile {
  body: Buffer;
  gzipped?: Buffer;
  contentType: string;
  etag: string;
}

/**
 * The security headers of every console response. Scripts come only from the console's own files
 * (no inline script, no eval); styles from its files, and `<style>` elements only with this
 * response's nonce (the terminal builds its own); every datum is fetched from this origin, where
 * the API checks who asks. Nothing may frame the console, and its pages refer nowhere.
 */
export function consoleSecurityHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      "script-src 'self'",
      `style-src 'self' 'nonce-${nonce}'`,
      "img-src 'self' data:",
      "font-src 'self'",
      "connect-src 'self'",
      "manifest-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/**
 * The built web console, read once into memory: its files under `/console/`, `/console` sent there.
 * The files are the same for everyone and hold no data: the console fetches everything it shows from
 * the API with the user's own credentials. Hashed assets are cached for a year; index.html never, and
 * it carries a new style nonce each time.
 */
export class ConsoleFiles {
  private readonly files = new Map<string, ConsoleFile>();

  constructor(readonly directory: string) {
    this.readAll(directory);
    if (!this.files.has('index.html')) throw new Error(`the console directory ${directory} has no index.html`);
  }

  /** The console in `directory`, or undefined when there is none (not built). */
  static load(directory: string | undefined): ConsoleFiles | undefined {
    if (directory === undefined || !existsSync(join(directory, 'index.html'))) return undefined;
    return new ConsoleFiles(directory);
  }

  get size(): number {
    return this.files.size;
  }

  private readAll(dir: string): void {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        this.readAll(full);
        continue;
      }
      if (!entry.isFile() || statSync(full).size > MAX_FILE_BYTES) continue;
      const name = relative(this.directory, full).split(sep).join('/');
      const body = readFileSync(full);
      const contentType = CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
      const compressible = /^(text\/|application\/json|image\/svg)/.test(contentType) && body.length > 1024;
      this.files.set(name, {
        body,
        gzipped: compressible ? gzipSync(body, { level: 9 }) : undefined,
        contentType,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      });
    }
  }

  /** Answers a request under `/console`; false when the path is not the console's. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const path = requestUrl(req).pathname;
    if (path === '/console') {
      res.statusCode = 301;
      res.setHeader('Location', CONSOLE_PATH);
      res.setHeader('Content-Length', 0);
      res.end();
      return true;
    }
    if (!path.startsWith(CONSOLE_PATH)) return false;
    const method = (req.method ?? 'GET').toUpperCase();
    const nonce = randomBytes(18).toString('base64');
    for (const [name, value] of Object.entries(consoleSecurityHeaders(nonce))) res.setHeader(name, value);
    if (method !== 'GET' && method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return this.plain(res, 405, 'method not allowed');
    }
    let name: string;
    try {
      name = decodeURIComponent(path.slice(CONSOLE_PATH.length));
    } catch {
      return this.plain(res, 400, 'malformed path');
    }
    const index = name === '' || name === 'index.html';
    const file = this.files.get(index ? 'index.html' : name);
    if (file === undefined) return this.plain(res, 404, 'not found');
    let body = file.body;
    if (index) {
      // The placeholder never appears elsewhere in the page, and a nonce is base64: nothing to escape.
      body = Buffer.from(file.body.toString('utf8').replaceAll(CONSOLE_NONCE_PLACEHOLDER, nonce));
      res.setHeader('Cache-Control', 'no-store');
    } else {
      res.setHeader('Cache-Control', name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.setHeader('ETag', file.etag);
      if (req.headers['if-none-match'] === file.etag) {
        res.statusCode = 304;
        res.end();
        return true;
      }
    }
    res.setHeader('Content-Type', file.contentType);
    if (!index && file.gzipped !== undefined && acceptsGzip(req.headers['accept-encoding'])) {
      body = file.gzipped;
      res.setHeader('Content-Encoding', 'gzip');
    }
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Content-Length', body.length);
    res.statusCode = 200;
    res.end(method === 'HEAD' ? undefined : body);
    return true;
  }

  private plain(res: ServerResponse, code: number, text: string): true {
    res.statusCode = code;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
    return true;
  }
}

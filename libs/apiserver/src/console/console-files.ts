import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { MuxRoute, RouteParams } from '../serving/mux';
import { acceptsGzip, type HeaderValues, type ResponseWriter } from '../serving/response-writer';

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
 * The built web console, read once into memory: its files under `/console/` (consoleRoutes).
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

  /** Answers a request for the console's `path` (what follows `/console/`, percent-escaped). */
  serve(req: IncomingMessage, res: ResponseWriter, path: string): void {
    const method = (req.method ?? 'GET').toUpperCase();
    const nonce = randomBytes(18).toString('base64');
    const security = consoleSecurityHeaders(nonce);
    if (method !== 'GET' && method !== 'HEAD') return plain(res, 405, 'method not allowed', { ...security, Allow: 'GET, HEAD' });
    let name: string;
    try {
      name = decodeURIComponent(path);
    } catch {
      return plain(res, 400, 'malformed path', security);
    }
    const index = name === '' || name === 'index.html';
    const file = this.files.get(index ? 'index.html' : name);
    if (file === undefined) return plain(res, 404, 'not found', security);
    if (index) {
      // The placeholder never appears elsewhere in the page, and a nonce is base64: nothing to escape.
      const page = Buffer.from(file.body.toString('utf8').replaceAll(CONSOLE_NONCE_PLACEHOLDER, nonce));
      return res.end(200, page, { ...security, 'Cache-Control': 'no-store', 'Content-Type': file.contentType, Vary: 'Accept-Encoding' }, { compress: false });
    }
    const cached = { ...security, 'Cache-Control': name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache', ETag: file.etag };
    if (req.headers['if-none-match'] === file.etag) return res.end(304, undefined, cached);
    // Compressed once, when read: a client that takes gzip gets those bytes as they are.
    const gzipped = file.gzipped !== undefined && acceptsGzip(req.headers['accept-encoding']);
    res.end(
      200,
      gzipped ? file.gzipped : file.body,
      { ...cached, 'Content-Type': file.contentType, Vary: 'Accept-Encoding', ...(gzipped ? { 'Content-Encoding': 'gzip' } : {}) },
      { compress: false },
    );
  }
}

function plain(res: ResponseWriter, code: number, text: string, headers: HeaderValues): void {
  res.end(code, text, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }, { compress: false });
}

/** The console's routes, served to anyone: `/console` sent to `/console/`, and its files under it. */
export function consoleRoutes(files: ConsoleFiles): MuxRoute[] {
  const serve = (req: IncomingMessage, res: ResponseWriter, params: RouteParams): void => files.serve(req, res, params.path ?? '');
  return [
    { path: '/console', toAnyone: true, handler: (_req, res) => res.end(301, undefined, { Location: CONSOLE_PATH, 'Content-Length': 0 }) },
    { path: CONSOLE_PATH, toAnyone: true, handler: serve },
    { path: `${CONSOLE_PATH}{path...}`, toAnyone: true, handler: serve },
  ];
}

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Mux } from '../serving/mux';
import { ResponseWriter } from '../serving/response-writer';
import { CONSOLE_NONCE_PLACEHOLDER, consoleRoutes, ConsoleFiles } from './console-files';

let dir: string;
let server: Server;
let port: number;
const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-console-files-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), `<meta property="csp-nonce" nonce="${CONSOLE_NONCE_PLACEHOLDER}"><script src="/console/assets/app-1.js"></script>`);
  await writeFile(join(dir, 'assets', 'app-1.js'), script);
  const mux = new Mux();
  for (const route of consoleRoutes(ConsoleFiles.load(dir)!)) mux.handle(route);
  server = createServer((req, res) => {
    const found = mux.match(req.method ?? 'GET', new URL(req.url ?? '/', 'http://console').pathname);
    if (found === undefined) {
      res.statusCode = 418;
      res.end('not the console');
      return;
    }
    void found.route.handler(req, ResponseWriter.of(res), found.params);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console files', () => {
  it('serves index.html with a new style nonce each time, matching its Content-Security-Policy, never cached', async () => {
    const [a, b] = await Promise.all([get('/console/'), get('/console/index.html')]);
    for (const answer of [a, b]) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-store');
      const nonce = /nonce="([^"]+)"/.exec(answer.body.toString())![1];
      expect(nonce).not.toBe(CONSOLE_NONCE_PLACEHOLDER);
      const csp = String(answer.headers['content-security-policy']);
      expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['x-frame-options']).toBe('DENY');
    }
    expect(/nonce="([^"]+)"/.exec(a.body.toString())![1]).not.toBe(/nonce="([^"]+)"/.exec(b.body.toString())![1]);
  });

  it('serves hashed assets for a year, gzipped when accepted, and answers a known ETag with 304', async () => {
    const plain = await get('/console/assets/app-1.js');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body.toString()).toBe(script);
    const gzipped = await get('/console/assets/app-1.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).toString()).toBe(script);
    const again = await get('/console/assets/app-1.js', { 'if-none-match': String(plain.headers.etag) });
    expect(again.status).toBe(304);
    const head = await get('/console/assets/app-1.js', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('sends /console to /console/, answers unknown files 404 and other methods 405, and leaves other paths alone', async () => {
    const moved = await get('/console');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe('/console/');
    expect((await get('/console/assets/missing.js')).status).toBe(404);
    expect((await get('/console/..%2Fpackage.json')).status).toBe(404);
    expect((await get('/console/%E0%A4%A')).status).toBe(400);
    const posted = await get('/console/', {}, 'POST');
    expect(posted.status).toBe(405);
    expect(posted.headers.allow).toBe('GET, HEAD');
    expect((await get('/consoles')).status).toBe(418);
    expect((await get('/api/v1/pods')).status).toBe(418);
  });

  it('is served to anyone: every route of it skips authentication and authorization', () => {
    const routes = consoleRoutes(ConsoleFiles.load(dir)!);
    expect(routes.map((route) => route.path)).toEqual(['/console', '/console/', '/console/{path...}']);
    expect(routes.every((route) => route.toAnyone === true)).toBe(true);
  });

  it('is absent when no console was built', () => {
    expect(ConsoleFiles.load(join(dir, 'nowhere'))).toBeUndefined();
    expect(ConsoleFiles.load(undefined)).toBeUndefined();
  });
});

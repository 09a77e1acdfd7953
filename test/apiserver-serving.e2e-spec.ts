import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import { healthCheck, servingConfig, startApiServer, type ApiServerHandle, type ApiServerServingConfig } from '@svc/apiserver';
import { httpsFetch } from './support/https-client';
import { kubectl } from './support/kubectl-run';
import { testRoutes } from './support/test-routes';

describe('API server serving shell over HTTPS', () => {
  let dir: string;
  let certDir: string;
  let svcconfig: string;
  let server: ApiServerHandle;
  let ca: string;
  let failing = false;

  const config = (overrides: Partial<ApiServerServingConfig> = {}): ApiServerServingConfig =>
    servingConfig({ bindAddress: '127.0.0.1', securePort: 0, certDir, svcconfigOut: svcconfig, ...overrides });
  const quiet = { stdout: () => undefined, logger: false as const };
  const get = (path: string, headers?: Record<string, string>) => httpsFetch(`${server.url}${path}`, { ca, headers });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-apiserver-e2e-'));
    certDir = join(dir, 'certs');
    svcconfig = join(dir, 'svcconfig');
    server = await startApiServer(config(), [testRoutes], quiet);
    server.health.addReadyzChecks(
      healthCheck('test-switch', () => {
        if (failing) throw new Error('switched off by the test');
      }),
    );
    ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
  });

  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a certificate that verifies against the generated CA, for the loopback address', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toBe('ok');
    await expect(httpsFetch(`${server.url}/healthz`)).rejects.toThrow(/self.signed|unable to (get|verify)/i);
    await expect(httpsFetch(`https://localhost:${server.port}/healthz`, { ca })).resolves.toMatchObject({ status: 200 });
  });

  it('keeps private keys and the client connection file readable by the owner only', async () => {
    for (const file of [join(certDir, 'ca.key'), join(certDir, 'apiserver.key'), svcconfig]) {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    }
  });

  it('writes a client connection file with one cluster, one anonymous user and context svc', async () => {
    const doc = parseYaml(await readFile(svcconfig, 'utf8'));
    expect(doc['current-context']).toBe('svc');
    expect(doc.clusters).toEqual([{ name: 'svc', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(ca).toString('base64') } }]);
    // A bare user name keeps kubectl from prompting; it carries no credential.
    expect(doc.users).toEqual([{ name: 'svc', user: { username: 'anonymous' } }]);
    expect(doc.contexts).toEqual([{ name: 'svc', context: { cluster: 'svc', user: 'svc' } }]);
  });

  it('lets kubectl connect with the client connection file, verifying TLS', async () => {
    const env = { KUBECONFIG: svcconfig, HOME: dir };
    const version = await kubectl(['version', '-o', 'json'], env);
    const parsed = JSON.parse(version.stdout);
    expect(parsed.serverVersion).toMatchObject({ major: '1', minor: '32', gitVersion: expect.stringMatching(/^v1\.32\.0/) });
    // kubectl of 1.32 compares minor versions: the server's is recent enough for no skew warning.
    const human = await kubectl(['version'], env);
    expect(human.stdout).toMatch(/Server Version: v1\.32\.0/);
    expect(`${human.stdout}${human.stderr}`).not.toMatch(/WARNING|skew/);
    const readyz = await kubectl(['get', '--raw', '/readyz?verbose'], env);
    expect(readyz.stdout).toContain('[+]ping ok');
    expect(readyz.stdout).toContain('readyz check passed');
  }, 45_000);

  it('answers /version with the version info', async () => {
    const res = await get('/version');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const info = JSON.parse(res.body);
    expect(info).toMatchObject({ major: '1', minor: '32', platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}` });
    expect(Object.keys(info).sort()).toEqual(
      ['buildDate', 'compiler', 'gitCommit', 'gitTreeState', 'gitVersion', 'goVersion', 'major', 'minor', 'platform'].sort(),
    );
  });

  describe('health endpoints', () => {
    afterEach(() => {
      failing = false;
    });

    it('prints each check and the passed line when verbose', async () => {
      const livez = await get('/livez?verbose');
      expect(livez.status).toBe(200);
      expect(livez.body).toBe('[+]ping ok\n[+]log ok\nlivez check passed\n');
      const healthz = await get('/healthz?verbose');
      expect(healthz.body).toBe('[+]ping ok\n[+]log ok\nhealthz check passed\n');
      const readyz = await get('/readyz?verbose');
      expect(readyz.body).toBe('[+]ping ok\n[+]log ok\n[+]test-switch ok\n[+]shutdown ok\nreadyz check passed\n');
      expect(readyz.headers['content-type']).toBe('text/plain; charset=utf-8');
    });

    it('answers ok when not verbose', async () => {
      for (const path of ['/healthz', '/livez', '/readyz']) expect((await get(path)).body).toBe('ok');
    });

    it('marks excluded checks', async () => {
      const res = await get('/readyz?verbose&exclude=log&exclude=test-switch');
      expect(res.body).toBe('[+]ping ok\n[+]log excluded: ok\n[+]test-switch excluded: ok\n[+]shutdown ok\nreadyz check passed\n');
    });

    it('answers one check, and 404 for an unknown one', async () => {
      expect(await get('/livez/ping')).toMatchObject({ status: 200, body: 'ok' });
      expect(await get('/readyz/shutdown')).toMatchObject({ status: 200, body: 'ok' });
      const unknown = await get('/livez/no-such-check');
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    });

    it('fails with 500, withholding the reason, when a check fails', async () => {
      failing = true;
      const res = await get('/readyz');
      expect(res.status).toBe(500);
      expect(res.body).toBe('[+]ping ok\n[+]log ok\n[-]test-switch failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n');
      expect(await get('/livez')).toMatchObject({ status: 200, body: 'ok' });
      const single = await get('/readyz/test-switch');
      expect(single.status).toBe(500);
      expect(single.body).toBe('internal server error: switched off by the test\n');
      expect((await get('/readyz?exclude=test-switch')).status).toBe(200);
    });
  });

  describe('errors are Status bodies', () => {
    it('answers an unknown path with 404 NotFound', async () => {
      for (const path of ['/no/such/path', '/api/v1/namespaces/default/pods/x', '/apis']) {
        const res = await get(path);
        expect(res.status).toBe(404);
        expect(res.headers['content-type']).toBe('application/json');
        expect(JSON.parse(res.body)).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'the server could not find the requested resource',
          reason: 'NotFound',
          details: {},
          code: 404,
        });
      }
    });

    it('turns a handler error into a 500 InternalError Status without a stack trace, and passes a thrown Status through', async () => {
      const failed = await get('/test/fail');
      expect(failed.status).toBe(500);
      expect(JSON.parse(failed.body)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Internal error occurred: the handler fell over',
        reason: 'InternalError',
        details: {},
        code: 500,
      });
      expect(failed.body).not.toMatch(/\bat \w|\.ts:\d+/);
      const conflict = await get('/test/conflict');
      expect(conflict.status).toBe(409);
      expect(JSON.parse(conflict.body)).toMatchObject({ reason: 'Conflict', code: 409 });
    });

    it('answers a malformed path with 400 BadRequest and a wrong method with a Status too', async () => {
      const malformed = await get('/livez/%E0%A4%A');
      expect(malformed.status).toBe(400);
      expect(JSON.parse(malformed.body)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      const wrongMethod = await httpsFetch(`${server.url}/metrics`, { ca, method: 'DELETE' });
      expect(JSON.parse(wrongMethod.body)).toMatchObject({ kind: 'Status', status: 'Failure' });
    });

    it('refuses a 4 MiB body with 413 from its Content-Length, without reading it', async () => {
      const res = await new Promise<{ status: number; body: string; sentBytes: number }>((resolve, reject) => {
        let sentBytes = 0;
        const req = httpsRequest(
          `${server.url}/api/v1/namespaces/default/configmaps`,
          { method: 'POST', ca, agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': 4 * 1024 * 1024 } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (c: Buffer) => chunks.push(c));
            response.on('end', () => {
              req.destroy();
              resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString(), sentBytes });
            });
          },
        );
        req.on('error', reject);
        // Only 64 KiB of the declared 4 MiB ever leave: the answer must not wait for the rest.
        const chunk = Buffer.alloc(64 * 1024, 'a');
        req.write(chunk);
        sentBytes += chunk.length;
      });
      expect(res.status).toBe(413);
      expect(res.sentBytes).toBeLessThan(4 * 1024 * 1024);
      expect(JSON.parse(res.body)).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'RequestEntityTooLarge',
        message: 'Request entity too large: limit is 3145728',
        code: 413,
      });
    });

    it('stops reading a chunked body at the limit with 413', async () => {
      const res = await new Promise<{ status: number; body: string; sentBytes: number }>((resolve, reject) => {
        let sentBytes = 0;
        let answered = false;
        const req = httpsRequest(`${server.url}/test/echo`, { method: 'POST', ca, agent: false }, (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () => {
            req.destroy();
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString(), sentBytes });
          });
        });
        req.on('error', (error) => (answered ? undefined : reject(error)));
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (!answered && sentBytes < 8 * 1024 * 1024) {
            sentBytes += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
        };
        pump();
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toMatchObject({ reason: 'RequestEntityTooLarge', code: 413 });
      expect(res.sentBytes).toBeLessThan(8 * 1024 * 1024);
    });

    it('reads a body under the limit', async () => {
      const res = await httpsFetch(`${server.url}/test/echo`, { method: 'POST', ca, body: Buffer.alloc(1024 * 1024, 'b') });
      expect(res.status).toBe(201);
      expect(JSON.parse(res.body)).toEqual({ bytes: 1024 * 1024 });
    });
  });

  it('exposes Prometheus metrics with the request counter', async () => {
    await get('/healthz');
    await get('/no/such/path');
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(
      /apiserver_request_total\{verb="GET",dry_run="",group="",version="",resource="",subresource="\/healthz",scope="",component="",code="200"\} \d+/,
    );
    expect(res.body).toMatch(/apiserver_request_total\{[^}]*code="404"\} \d+/);
    expect(res.body).not.toContain('/no/such/path');
    expect(res.body).toContain('apiserver_request_duration_seconds_bucket{');
    expect(res.body).toContain('apiserver_current_inflight_requests{request_kind="readOnly"}');
    expect(res.body).toContain('# TYPE apiserver_longrunning_requests gauge');
    expect(res.body).toContain('# TYPE apiserver_storage_objects gauge');
    expect(res.body).toContain('# TYPE apiserver_requested_deprecated_apis gauge');
    expect(res.body).toContain('process_cpu_user_seconds_total');
    expect(res.body).toContain('nodejs_heap_size_used_bytes');
  });
});

describe('API server serving shell: restarts, limits and shutdown', () => {
  let dir: string;
  let certDir: string;
  const quiet = { stdout: () => undefined, logger: false as const };
  const config = (overrides: Partial<ApiServerServingConfig> = {}): ApiServerServingConfig =>
    servingConfig({ bindAddress: '127.0.0.1', securePort: 0, certDir, ...overrides });
  const servedCertificate = (port: number) =>
    new Promise<X509Certificate>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        const raw = socket.getPeerCertificate().raw;
        socket.end();
        resolve(new X509Certificate(raw));
      });
      socket.on('error', reject);
    });
  const running: ApiServerHandle[] = [];
  const start = async (overrides: Partial<ApiServerServingConfig> = {}) => {
    const handle = await startApiServer(config(overrides), [testRoutes], quiet);
    running.push(handle);
    return handle;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-apiserver-e2e-'));
    certDir = join(dir, 'certs');
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((h) => h.close()));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reuses the generated CA and serving certificate on restart', async () => {
    const first = await start();
    const firstCert = await servedCertificate(first.port);
    const caBefore = await readFile(join(certDir, 'ca.crt'), 'utf8');
    await first.close();
    const second = await start();
    expect(second.certificates.generated).toBe(false);
    expect((await servedCertificate(second.port)).fingerprint256).toBe(firstCert.fingerprint256);
    expect(await readFile(join(certDir, 'ca.crt'), 'utf8')).toBe(caBefore);
    await expect(httpsFetch(`${second.url}/livez`, { ca: caBefore })).resolves.toMatchObject({ status: 200 });
  });

  it('fails to start, leaving nothing behind, when the port is taken', async () => {
    const first = await start();
    await expect(startApiServer(config({ securePort: first.port }), [], quiet)).rejects.toThrow(/EADDRINUSE/);
    expect((await httpsFetch(`${first.url}/healthz`, { ca: first.certificates.caPem })).status).toBe(200);
  });

  it('answers 504 Timeout for a request running past --request-timeout, and honours a shorter timeout parameter', async () => {
    const server = await start({ requestTimeoutMs: 1_500 });
    const ca = server.certificates.caPem;
    const res = await httpsFetch(`${server.url}/test/slow?ms=10000`, { ca });
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body)).toMatchObject({
      kind: 'Status',
      reason: 'Timeout',
      code: 504,
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    });
    const started = Date.now();
    expect((await httpsFetch(`${server.url}/test/slow?ms=10000&timeout=100ms`, { ca })).status).toBe(504);
    expect(Date.now() - started).toBeLessThan(1_400);
    expect((await httpsFetch(`${server.url}/test/slow?ms=10`, { ca })).status).toBe(200);
    const invalid = await httpsFetch(`${server.url}/test/slow?ms=10&timeout=soon`, { ca });
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body)).toMatchObject({ reason: 'BadRequest', code: 400 });
  });

  it('refuses requests over --max-requests-inflight with 429 and Retry-After, but never the probes', async () => {
    const server = await start({ maxRequestsInflight: 1 });
    const ca = server.certificates.caPem;
    const slow = httpsFetch(`${server.url}/test/slow?ms=1000`, { ca });
    await waitFor(() => server.lifecycle.inFlightDrainable === 1);
    const refused = await httpsFetch(`${server.url}/test/slow?ms=0`, { ca });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
    expect((await httpsFetch(`${server.url}/readyz`, { ca })).status).toBe(200);
    // Mutating requests have their own cap.
    expect((await httpsFetch(`${server.url}/test/echo`, { ca, method: 'POST', body: '{}' })).status).toBe(201);
    expect((await slow).status).toBe(200);
    const metrics = await httpsFetch(`${server.url}/metrics`, { ca });
    expect(metrics.body).toMatch(/apiserver_request_total\{verb="GET",[^}]*subresource="\/test\/slow"[^}]*code="429"\} 1/);
  });

  it('applies --tls-min-version and --tls-cipher-suites', async () => {
    const strict = await start({ tlsMinVersion: 'VersionTLS13' });
    const handshake = (port: number, options: { maxVersion?: 'TLSv1.2' | 'TLSv1.3' }) =>
      new Promise<{ protocol: string | null; cipher: string }>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port, ca: strict.certificates.caPem, ...options }, () => {
          const result = { protocol: socket.getProtocol(), cipher: socket.getCipher().name };
          socket.end();
          resolve(result);
        });
        socket.on('error', reject);
      });
    await expect(handshake(strict.port, { maxVersion: 'TLSv1.2' })).rejects.toThrow();
    await expect(handshake(strict.port, {})).resolves.toMatchObject({ protocol: 'TLSv1.3' });
    const chosen = await start({ tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'] });
    await expect(handshake(chosen.port, { maxVersion: 'TLSv1.2' })).resolves.toEqual({ protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-CHACHA20-POLY1305' });
    await expect(handshake(chosen.port, {})).resolves.toMatchObject({ protocol: 'TLSv1.3' });
  });

  it('adds HSTS and answers CORS for allowed origins only', async () => {
    const server = await start({
      strictTransportSecurityDirectives: ['max-age=31536000', 'includeSubDomains', 'preload'],
      corsAllowedOrigins: ['^https://console\\.example\\.com$'],
    });
    const ca = server.certificates.caPem;
    const allowed = await httpsFetch(`${server.url}/version`, { ca, headers: { Origin: 'https://console.example.com' } });
    expect(allowed.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains; preload');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://console.example.com');
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    const preflight = await httpsFetch(`${server.url}/api/v1/pods`, { ca, method: 'OPTIONS', headers: { Origin: 'https://console.example.com' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('POST, GET, OPTIONS, PUT, DELETE, PATCH');
    const other = await httpsFetch(`${server.url}/version`, { ca, headers: { Origin: 'https://evil.example.com' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('on shutdown fails readyz at once, keeps livez during the delay, then drains and refuses new requests', async () => {
    const server = await start({ shutdownDelayDurationMs: 1_000, shutdownSendRetryAfter: true });
    const ca = server.certificates.caPem;
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
    try {
      // The long request keeps the drain going; the short one leaves its keep-alive connection open during it.
      const long = httpsFetch(`${server.url}/test/slow?ms=2500`, { ca });
      const short = httpsFetch(`${server.url}/test/slow?ms=1600`, { ca, agent });
      await waitFor(() => server.lifecycle.inFlightDrainable === 2);
      const stopped = server.shutdown();

      const readyz = await httpsFetch(`${server.url}/readyz?verbose`, { ca });
      expect(readyz.status).toBe(500);
      expect(readyz.body).toContain('[-]shutdown failed: reason withheld\n');
      expect(readyz.body.endsWith('readyz check failed\n')).toBe(true);
      expect(await httpsFetch(`${server.url}/livez`, { ca })).toMatchObject({ status: 200, body: 'ok' });

      await server.lifecycle.whenReached('notAcceptingNewRequests');
      await expect(httpsFetch(`${server.url}/livez`, { ca })).rejects.toThrow(/ECONNREFUSED|ECONNRESET|socket hang up/);
      expect(server.lifecycle.phase).toBe('notAcceptingNewRequests');

      expect((await short).status).toBe(200);
      // A new request on a connection that stayed open is turned away with a retry hint while others drain.
      const late = await httpsFetch(`${server.url}/test/slow?ms=0`, { ca, agent });
      expect(late.status).toBe(429);
      expect(late.headers['retry-after']).toBe('5');
      expect(late.headers.connection).toBe('close');
      expect(JSON.parse(late.body)).toMatchObject({ reason: 'TooManyRequests', message: 'The apiserver is shutting down, please try again later.' });

      expect((await long).status).toBe(200);
      await stopped;
      expect(server.lifecycle.phase).toBe('stopped');
    } finally {
      agent.destroy();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

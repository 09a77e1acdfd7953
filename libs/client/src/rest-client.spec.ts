import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { isConflict, isInvalid, isNotFound, isResourceExpired, isTooManyRequests, StatusError } from '@svc/machinery';
import { generate } from 'selfsigned';
import type { ClientConfig } from './client-config';
import { json, RecordingClock, ScriptedServer, status, type Handler } from './testing/scripted-server';
import { isTransportError, isWithdrawn, TransportError } from './response-errors';
import { RestClient } from './rest-client';
import { ResourceClient } from './resource-client';
import type { WatchEvent } from './watch';

const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };

describe('RestClient against a scripted server', () => {
  let server: ScriptedServer;
  let url: string;
  let clock: RecordingClock;
  const clients: RestClient[] = [];
  const client = (config: Partial<ClientConfig> = {}) => {
    const c = new RestClient({ server: url, qps: -1, ...config }, { clock });
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    server = new ScriptedServer();
    url = await server.listen();
    clock = new RecordingClock();
  });

  afterEach(async () => {
    clients.splice(0).forEach((c) => c.close());
    await server.close();
  });

  describe('errors', () => {
    it('throws the server Status as a StatusError the predicates recognise', async () => {
      server.script(
        json(404, status(404, 'NotFound', 'configmaps "x" not found')),
        json(409, status(409, 'Conflict')),
        json(422, { ...status(422, 'Invalid'), details: { causes: [{ reason: 'FieldValueRequired', field: 'data' }] } }),
      );
      const rest = client();
      const err = await rest.request({ method: 'GET', path: '/api/v1/namespaces/d/configmaps/x' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StatusError);
      expect(isNotFound(err)).toBe(true);
      expect((err as StatusError).message).toBe('configmaps "x" not found');
      expect(isConflict(await rest.request({ method: 'PUT', path: '/x', body: {} }).catch((e: unknown) => e))).toBe(true);
      const invalid = await rest.request({ method: 'POST', path: '/x', body: {} }).catch((e: unknown) => e);
      expect(isInvalid(invalid)).toBe(true);
      expect((invalid as StatusError).status.details?.causes).toEqual([{ reason: 'FieldValueRequired', field: 'data' }]);
    });

    it('makes a Status from the code when the body is not one, keeping the start of the body', async () => {
      server.script(
        (_req, res) => res.writeHead(404, { 'Content-Type': 'text/html' }).end('<html>nope</html>'),
        (_req, res) => res.writeHead(502).end(),
      );
      const rest = client();
      const err = (await rest.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as StatusError;
      expect(isNotFound(err)).toBe(true);
      expect(err.status).toMatchObject({
        code: 404,
        reason: 'NotFound',
        details: { causes: [{ reason: 'UnexpectedServerResponse', message: '<html>nope</html>' }] },
      });
      const bad = (await rest.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as StatusError;
      expect(bad.status).toMatchObject({ code: 502, reason: 'InternalError' });
    });

    it('treats a Failure Status with a success code as a failure', async () => {
      server.script(json(200, status(409, 'Conflict')));
      expect(
        isConflict(
          await client()
            .request({ method: 'GET', path: '/x' })
            .catch((e: unknown) => e),
        ),
      ).toBe(true);
    });

    it('reports an unreachable server as a TransportError (503 ServiceUnavailable) with the cause', async () => {
      const port = (server.server.address() as AddressInfo).port;
      await server.close();
      const err = await client({ server: `http://127.0.0.1:${port}` })
        .request({ method: 'GET', path: '/x' })
        .catch((e: unknown) => e);
      expect(isTransportError(err)).toBe(true);
      expect(err).toMatchObject({ code: 503, reason: 'ServiceUnavailable', failure: 'connection' });
      expect((err as TransportError).cause).toMatchObject({ code: 'ECONNREFUSED' });
      server = new ScriptedServer();
      url = await server.listen();
    });

    it('reports a missed deadline as a 504 TransportError, and a caller abort with the abort reason', async () => {
      server.always(() => undefined); // never answers
      server.script(() => undefined);
      const err = await client({ timeoutMs: 50 })
        .request({ method: 'GET', path: '/slow' })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ failure: 'timeout', code: 504, reason: 'Timeout' });
      server.script((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"partial":');
      });
      const midBody = await client({ timeoutMs: 50 })
        .request({ method: 'GET', path: '/stalls' })
        .catch((e: unknown) => e);
      expect(midBody).toMatchObject({ failure: 'timeout', code: 504 });
      const controller = new AbortController();
      const pending = client().request({ method: 'GET', path: '/slow', signal: controller.signal });
      setTimeout(() => controller.abort(new Error('caller gave up')), 20);
      await expect(pending).rejects.toThrow('caller gave up');
    });
  });

  describe('retries', () => {
    it('retries a 429 after the Retry-After seconds, whatever the method', async () => {
      server.script(json(429, status(429, 'TooManyRequests'), { 'Retry-After': '2' }), json(201, { kind: 'ConfigMap' }));
      await expect(client().request({ method: 'POST', path: '/x', body: { a: 1 } })).resolves.toEqual({ kind: 'ConfigMap' });
      expect(clock.waits).toEqual([2000]);
      expect(server.requests.map((r) => r.body)).toEqual(['{"a":1}', '{"a":1}']);
    });

    it('retries a 503 with Retry-After; another 5xx with it only for reads; nothing without it', async () => {
      server.script(json(503, status(503, 'ServiceUnavailable'), { 'Retry-After': '1' }), json(200, {}));
      await client().request({ method: 'DELETE', path: '/x' });
      expect(server.requests).toHaveLength(2);

      server.script(json(504, status(504, 'Timeout'), { 'Retry-After': '1' }), json(200, { ok: 1 }));
      await expect(client().request({ method: 'GET', path: '/x' })).resolves.toEqual({ ok: 1 });
      expect(server.requests).toHaveLength(4);

      server.script(json(504, status(504, 'Timeout'), { 'Retry-After': '1' }));
      await expect(client().request({ method: 'POST', path: '/x', body: {} })).rejects.toMatchObject({ code: 504 });
      server.script(json(429, status(429, 'TooManyRequests')));
      await expect(client().request({ method: 'GET', path: '/x' })).rejects.toMatchObject({ code: 429 });
      expect(server.requests).toHaveLength(6);
    });

    it('gives up after maxRetries and caps each wait', async () => {
      server.always(json(429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '3600' }));
      const err = await client({ maxRetries: 2, maxRetryWaitMs: 5000 })
        .request({ method: 'GET', path: '/x' })
        .catch((e: unknown) => e);
      expect(isTooManyRequests(err)).toBe(true);
      expect((err as StatusError).status.details?.retryAfterSeconds).toBe(3600);
      expect(server.requests).toHaveLength(3);
      expect(clock.waits).toEqual([5000, 5000]);
    });

    it('retries a read whose connection broke, not a write', async () => {
      const reset: Handler = (req) => req.socket.destroy();
      server.script(reset, json(200, { ok: true }));
      await expect(client().request({ method: 'GET', path: '/x' })).resolves.toEqual({ ok: true });
      server.script(reset);
      await expect(client().request({ method: 'POST', path: '/x', body: {} })).rejects.toMatchObject({ failure: 'connection' });
      expect(server.requests).toHaveLength(3);
    });
  });

  describe('several servers', () => {
    it('goes on to the next server when one refuses connections, writes included, and stays there', async () => {
      const gone = new ScriptedServer();
      const goneUrl = await gone.listen();
      await gone.close();
      server.script(json(200, { n: 1 }), json(201, { n: 2 }), json(200, { n: 3 }));
      const rest = client({ server: goneUrl, servers: [url] });
      expect(await rest.request({ method: 'GET', path: '/a' })).toEqual({ n: 1 });
      expect(await rest.request({ method: 'POST', path: '/b', body: {} })).toEqual({ n: 2 });
      expect(rest.baseUrl.toString()).toBe(new URL(url).toString());
      expect(await rest.request({ method: 'GET', path: '/c' })).toEqual({ n: 3 });
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /a', 'POST /b', 'GET /c']);
    });

    it('with every server gone, says which one it tried last', async () => {
      const gone = new ScriptedServer();
      const goneUrl = await gone.listen();
      await gone.close();
      await server.close();
      const rest = client({ server: goneUrl, servers: [url], maxRetries: 0 });
      const err = await rest.request({ method: 'GET', path: '/a' }).catch((e: unknown) => e);
      expect(isTransportError(err)).toBe(true);
      expect((err as TransportError).message).toMatch(/cannot reach the API server at http:\/\/127\.0\.0\.1:\d+/);
      server = new ScriptedServer();
      url = await server.listen();
    });
  });

  describe('withdrawal', () => {
    const later =
      (ms: number, answer: Handler): Handler =>
      (req, res, body) =>
        setTimeout(() => answer(req, res, body), ms);

    it('withdraws a request still waiting for the rate limiter: it is never sent', async () => {
      server.always(json(201, { kind: 'ConfigMap' }));
      // The system clock, so that the second request really waits for its token.
      const rest = new RestClient({ server: url, qps: 1, burst: 1 });
      clients.push(rest);
      const withdraw = new AbortController();
      await rest.request({ method: 'POST', path: '/x', body: {}, withdraw: withdraw.signal });
      const waiting = rest.request({ method: 'POST', path: '/x', body: {}, withdraw: withdraw.signal }).catch((e: unknown) => e);
      setTimeout(() => withdraw.abort(new Error('leadership lost')), 20);
      const err = await waiting;
      expect(isWithdrawn(err)).toBe(true);
      expect((err as Error).message).toContain('leadership lost');
      expect(server.requests).toHaveLength(1);
      // Its token was given back: the next request is not slowed by it.
      const started = Date.now();
      await rest.request({ method: 'GET', path: '/x' });
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('lets a write already sent run to its answer, and cuts a read off', async () => {
      server.script(later(150, json(201, { kind: 'ConfigMap', metadata: { name: 'made' } })));
      const withdraw = new AbortController();
      const write = client().request({ method: 'POST', path: '/x', body: {}, withdraw: withdraw.signal });
      setTimeout(() => withdraw.abort(new Error('leadership lost')), 30);
      await expect(write).resolves.toEqual({ kind: 'ConfigMap', metadata: { name: 'made' } });

      server.script(() => undefined); // never answers
      const read = new AbortController();
      const pending = client()
        .request({ method: 'GET', path: '/x', withdraw: read.signal })
        .catch((e: unknown) => e);
      setTimeout(() => read.abort(new Error('leadership lost')), 30);
      expect(isWithdrawn(await pending)).toBe(true);
    });

    it('withdraws a write between retries, before it is sent again', async () => {
      const withdraw = new AbortController();
      server.script((req, res, body) => {
        withdraw.abort(new Error('leadership lost'));
        json(429, status(429, 'TooManyRequests'), { 'Retry-After': '1' })(req, res, body);
      });
      const err = await client()
        .request({ method: 'PUT', path: '/x', body: {}, withdraw: withdraw.signal })
        .catch((e: unknown) => e);
      expect(isWithdrawn(err)).toBe(true);
      expect(server.requests).toHaveLength(1);
    });

    it('asks writeWithdrawal for the signal of every write, never of a read', async () => {
      server.always(json(200, {}));
      const gone = AbortSignal.abort(new Error('leadership lost'));
      let asked = 0;
      const rest = new RestClient({ server: url, qps: -1 }, { writeWithdrawal: () => (asked++, gone) });
      clients.push(rest);
      await expect(rest.request({ method: 'GET', path: '/x' })).resolves.toEqual({});
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        expect(isWithdrawn(await rest.request({ method, path: '/x', body: {} }).catch((e: unknown) => e))).toBe(true);
      }
      expect(asked).toBe(4);
      expect(server.requests.map((r) => r.method)).toEqual(['GET']);
      // A caller's own abort still wins over the withdrawal.
      const own = AbortSignal.abort(new Error('caller gave up'));
      await expect(rest.request({ method: 'POST', path: '/x', body: {}, signal: own })).rejects.toThrow('caller gave up');
    });
  });

  it('limits the rate of requests, retries included, by qps and burst', async () => {
    server.always(json(200, {}));
    const rest = client({ qps: 4, burst: 2 });
    for (let i = 0; i < 5; i++) await rest.request({ method: 'GET', path: '/x' });
    expect(clock.waits).toEqual([250, 250, 250]);
  });

  it('sends JSON with the configured user agent and a bearer token, re-reading a token file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-client-token-'));
    try {
      server.always(json(200, {}));
      await client({ token: 'tok', userAgent: 'tester/1' }).request({
        method: 'PATCH',
        path: '/x',
        body: { a: 1 },
        contentType: 'application/merge-patch+json',
        query: { dryRun: 'All', skip: undefined },
      });
      expect(server.requests[0]).toMatchObject({ url: '/x?dryRun=All', body: '{"a":1}' });
      expect(server.requests[0].headers).toMatchObject({
        accept: 'application/json',
        'user-agent': 'tester/1',
        authorization: 'Bearer tok',
        'content-type': 'application/merge-patch+json',
      });

      const tokenFile = join(dir, 'token');
      await writeFile(tokenFile, 'one\n');
      const rest = client({ tokenFile });
      await rest.request({ method: 'GET', path: '/x' });
      await writeFile(tokenFile, 'two\n');
      await rest.request({ method: 'GET', path: '/x' });
      clock.t += 61_000;
      await rest.request({ method: 'GET', path: '/x' });
      expect(server.requests.slice(1).map((r) => r.headers.authorization)).toEqual(['Bearer one', 'Bearer one', 'Bearer two']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('asks a token source for each request before any token, and fails as a connection error when it cannot give one', async () => {
    server.always(json(200, {}));
    let n = 0;
    const rest = client({ token: 'static', tokenSource: async () => `fresh-${++n}` });
    await rest.request({ method: 'GET', path: '/x' });
    await rest.request({ method: 'GET', path: '/x' });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer fresh-1', 'Bearer fresh-2']);
    const failing = client({
      tokenSource: () => Promise.reject(new Error('no token today')),
    });
    await expect(failing.request({ method: 'GET', path: '/x' })).rejects.toThrow(/cannot get a bearer token: no token today/);
    expect(server.requests).toHaveLength(2);
  });

  describe('watch streams', () => {
    const ev = (type: string, name: string, rv: string, extra: Record<string, unknown> = {}) => ({
      type,
      object: { kind: 'ConfigMap', metadata: { name, resourceVersion: rv }, data: { text: 'héllo {"]' }, ...extra },
    });

    async function collect<T>(iterable: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
      const out: WatchEvent<T>[] = [];
      for await (const e of iterable) out.push(e);
      return out;
    }

    it('decodes events split anywhere, several to a chunk, and ends when the server closes', async () => {
      const events = [ev('ADDED', 'a', '1'), ev('MODIFIED', 'a', '2'), ev('BOOKMARK', '', '3'), ev('DELETED', 'a', '4')];
      const bytes = Buffer.from(events.map((e) => JSON.stringify(e) + '\n').join(''));
      server.script((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        // Cut inside a multi-byte character, inside strings, and across event boundaries.
        const cuts = [3, 40, 41, 95, bytes.indexOf('é') + 1, 200, 260, bytes.length];
        let at = 0;
        const next = () => {
          const cut = cuts.shift();
          if (cut === undefined) return res.end();
          res.write(bytes.subarray(at, Math.max(at, cut)));
          at = Math.max(at, cut);
          setImmediate(next);
        };
        next();
      });
      const watch = await new ResourceClient(client(), CONFIG_MAPS).watch({ namespace: 'd', resourceVersion: '0', allowWatchBookmarks: true });
      expect(await collect(watch)).toEqual(events);
      expect(watch.resourceVersion).toBe('4');
      expect(server.requests[0].url).toBe('/api/v1/namespaces/d/configmaps?watch=1&resourceVersion=0&allowWatchBookmarks=true');
    });

    it('throws an ERROR event as its StatusError', async () => {
      server.script((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(JSON.stringify(ev('ADDED', 'a', '5')) + '\n');
        res.end(JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version: 1 (5)') }) + '\n');
      });
      const watch = await new ResourceClient(client(), CONFIG_MAPS).watch({ resourceVersion: '1' });
      const seen: string[] = [];
      const err = await (async () => {
        for await (const e of watch) seen.push(e.type);
      })().catch((e: unknown) => e);
      expect(seen).toEqual(['ADDED']);
      expect(isResourceExpired(err)).toBe(true);
      expect((err as StatusError).message).toBe('too old resource version: 1 (5)');
    });

    it('ends the iteration cleanly on stop() or an abort while waiting for events', async () => {
      server.always((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(JSON.stringify(ev('ADDED', 'a', '1')) + '\n');
      });
      const resources = new ResourceClient(client(), CONFIG_MAPS);
      const watch = await resources.watch();
      const seen: string[] = [];
      const done = (async () => {
        for await (const e of watch) {
          seen.push(e.object.metadata!.name!);
          setTimeout(() => watch.stop(), 10);
        }
      })();
      await expect(done).resolves.toBeUndefined();
      expect(seen).toEqual(['a']);

      const controller = new AbortController();
      const aborted = await resources.watch({ signal: controller.signal });
      setTimeout(() => controller.abort(), 10);
      await expect(collect(aborted)).resolves.toHaveLength(1);
    });

    it('throws a TransportError when the stream breaks inside an event, and rejects a refused watch', async () => {
      server.script(
        (req, res) => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.write('{"type":"ADDED","object":{"metadata"');
          setTimeout(() => req.socket.destroy(), 10);
        },
        json(410, status(410, 'Expired')),
      );
      const resources = new ResourceClient(client(), CONFIG_MAPS);
      await expect(collect(await resources.watch())).rejects.toMatchObject({ failure: 'connection' });
      expect(isResourceExpired(await resources.watch({ resourceVersion: '1' }).catch((e: unknown) => e))).toBe(true);
    });
  });

  describe('TLS', () => {
    it('verifies the server against the given CA, sends a client certificate, and skips verification only when told', async () => {
      const pems = await generate([{ name: 'commonName', value: 'test-server' }], {
        keyType: 'ec',
        algorithm: 'sha256',
        clientCertificate: { cn: 'test-client', keyType: 'ec' },
        extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
      });
      const seen: Array<string | undefined> = [];
      const tls = createHttpsServer({ key: pems.private, cert: pems.cert, ca: pems.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        seen.push(peer && peer.subject ? String(peer.subject.CN) : undefined);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
      const server = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
      try {
        await expect(
          client({ server, ca: pems.cert, clientCert: pems.clientcert, clientKey: pems.clientprivate }).request({ method: 'GET', path: '/' }),
        ).resolves.toEqual({});
        const unverified = await client({ server })
          .request({ method: 'GET', path: '/' })
          .catch((e: unknown) => e);
        expect(unverified).toMatchObject({ failure: 'connection' });
        expect((unverified as Error).message).toMatch(/self.signed|unable to verify/i);
        await expect(client({ server, insecureSkipTlsVerify: true }).request({ method: 'GET', path: '/' })).resolves.toEqual({});
        expect(seen).toEqual(['test-client', undefined]);
      } finally {
        tls.closeAllConnections();
        await new Promise((resolve) => tls.close(resolve));
      }
    });
  });
});

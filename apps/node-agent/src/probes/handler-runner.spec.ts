import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { Container } from '@svc/api';
import type { CriClient } from '@svc/cri';
import { resolvePort, runHandler } from './handler-runner';

// HTTP and TCP handlers run against servers of this test on loopback; exec goes through the runtime,
// which the end-to-end tests cover with real containers.
const noRuntime = {} as CriClient;

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('probe and hook handlers', () => {
  let http: Server;
  let port = 0;
  const seen: string[] = [];

  beforeAll(async () => {
    http = createServer((req, res) => {
      seen.push(`${req.url} ${String(req.headers['x-check'] ?? '')} ${String(req.headers['user-agent'])}`);
      if (req.url === '/healthy') return res.writeHead(200).end('ok');
      if (req.url === '/moved') return res.writeHead(302, { location: '/healthy' }).end();
      if (req.url === '/away') return res.writeHead(301, { location: 'http://elsewhere.invalid/' }).end();
      if (req.url === '/slow') return setTimeout(() => res.writeHead(200).end(), 3_000);
      res.writeHead(503).end('down');
    });
    port = await listen(http);
  });

  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  const container = (): Container => ({ name: 'app', image: 'i', ports: [{ name: 'web', containerPort: port }] });
  const get = (path: string, extra: Record<string, unknown> = {}) =>
    runHandler(noRuntime, { httpGet: { port: 'web', path, host: '127.0.0.1', ...extra } }, container(), 'c1', '10.9.9.9', 1);

  it('resolves a named port against the container, a number or numeric string as it is', () => {
    expect(resolvePort('web', container())).toBe(port);
    expect(resolvePort(8080, container())).toBe(8080);
    expect(resolvePort('8081', container())).toBe(8081);
    expect(resolvePort('nope', container())).toBeUndefined();
  });

  it('passes an HTTP GET answered 200-399 (following a redirect on the same host), with its headers', async () => {
    expect(await get('/healthy', { httpHeaders: [{ name: 'X-Check', value: 'yes' }] })).toEqual({ ok: true, message: '' });
    expect(seen).toContain('/healthy yes svc-probe/1.0');
    expect(await get('/moved')).toEqual({ ok: true, message: '' });
    expect(await get('/away')).toEqual({ ok: true, message: '' });
  });

  it("fails one answered otherwise, timed out or refused, in Kubernetes' words", async () => {
    expect(await get('/broken')).toEqual({ ok: false, message: 'HTTP probe failed with statuscode: 503' });
    const slow = await get('/slow');
    expect(slow.ok).toBe(false);
    expect(slow.message).toMatch(/^Get "http:\/\/127\.0\.0\.1:\d+\/slow": .*Client\.Timeout exceeded/);
    expect(await runHandler(noRuntime, { httpGet: { port: 'nope' } }, container(), 'c1', '127.0.0.1', 1)).toEqual({
      ok: false,
      message: 'unknown port "nope"',
    });
  });

  it('passes a TCP connect to a listening port and fails one to a closed port', async () => {
    const tcp = createTcpServer((socket) => socket.end());
    const open = await listen(tcp);
    expect(await runHandler(noRuntime, { tcpSocket: { port: open } }, container(), 'c1', '127.0.0.1', 1)).toEqual({ ok: true, message: '' });
    await new Promise((resolve) => tcp.close(resolve));
    const closed = await runHandler(noRuntime, { tcpSocket: { port: open, host: '127.0.0.1' } }, container(), 'c1', '10.9.9.9', 1);
    expect(closed).toEqual({ ok: false, message: `dial tcp 127.0.0.1:${open}: connect ECONNREFUSED 127.0.0.1:${open}` });
  });

  it('fails a handler of no kind', async () => {
    expect(await runHandler(noRuntime, {}, container(), 'c1', '127.0.0.1', 1)).toEqual({ ok: false, message: 'no handler' });
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { ApiClient, type ApiRequestOptions, type ApiResponse } from './support/api-client';
import { create, createNamespace, expectStatus } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { KubectlIdentities } from './support/kubectl-identities';
import { KUBECTL, runKubectl } from './support/kubectl-run';

// The proxy subresources of services, pods and nodes, through kubectl proxy as a user reaches them.
// The "pod" is an HTTP server of this test on the host's own global address (Kubernetes proxies to
// global unicast addresses only, never loopback); the "node agent" is an HTTPS server on that address
// too, which a Node object points at, reached over the API server's node agent connection.

let server: ApiServerProcess;
let client: ApiClient;
let as: KubectlIdentities;
let backend: Server;
let agent: HttpsServer;
let proxy: ChildProcess;
let proxyUrl = '';
const ns = 'proxy-e2e';
let podIp = '';
let backendPort = 0;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

/** The test's own requests, as an administrator (a token in system:masters). */
class AdminClient extends ApiClient {
  override request<T = unknown>(method: string, path: string, options: ApiRequestOptions = {}): Promise<ApiResponse<T>> {
    return super.request<T>(method, path, { ...options, headers: { Authorization: 'Bearer admin-token', ...options.headers } });
  }
}

function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
  }
  throw new Error('this host has no global IPv4 address for the test pod');
}

function listen(s: Server | HttpsServer, host: string): Promise<number> {
  return new Promise((resolve) => s.listen(0, host, () => resolve((s.address() as AddressInfo).port)));
}

function startBackend(): Server {
  const s = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '').split('?')[0];
      if (path === '/redirect') {
        res.writeHead(302, { Location: '/landing?x=1' });
        return res.end();
      }
      if (path === '/absolute-redirect') {
        res.writeHead(302, { Location: `http://${podIp}:${backendPort}/landing/` });
        return res.end();
      }
      if (path === '/elsewhere') {
        res.writeHead(302, { Location: 'https://example.com/x' });
        return res.end();
      }
      if (path === '/cors') {
        res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'X-Kept': 'yes' });
        return res.end('cors');
      }
      if (path === '/stream') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('first\n');
        // The second chunk only after the client has read the first: the answer must stream.
        setTimeout(() => res.end('second\n'), 1500);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': ['a=1', 'b=2'] });
      res.end(JSON.stringify({ method: req.method, url: req.url, body }));
    });
  });
  // A minimal WebSocket server: the handshake, then one text frame back.
  s.on('upgrade', (req, socket) => {
    const key = String(req.headers['sec-websocket-key']);
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    const text = Buffer.from(`hello ${req.url}`);
    socket.end(Buffer.concat([Buffer.from([0x81, text.length]), text]));
  });
  return s;
}

async function curl(path: string, ...args: string[]): Promise<{ code: string; headers: string; body: string }> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '-D', '-', '-o', '-', ...args, `${proxyUrl}${path}`], { timeout: 20_000 }, (error, stdout) => {
      if (error) return reject(new Error(`curl ${path}: ${error.message}`));
      const split = stdout.indexOf('\r\n\r\n');
      const headers = stdout.slice(0, split);
      resolve({ code: headers.split(' ')[1], headers, body: stdout.slice(split + 4) });
    });
  });
}

beforeAll(async () => {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const tokens = join(await mkdtemp(join(tmpdir(), 'svc-proxy-e2e-')), 'tokens.csv');
  await writeFile(tokens, 'admin-token,admin,uid-admin,"system:masters"\n');
  server = await startApiServerProcess({
    args: ['--authorization-mode=RBAC', '--nodeagent-preferred-address-types=InternalIP', `--token-auth-file=${tokens}`],
  });
  client = new AdminClient(server.url, server.ca);
  as = new KubectlIdentities(server, server.dir);
  podIp = hostAddress();
  backend = startBackend();
  backendPort = await listen(backend, podIp);
  const certs = join(server.dir, 'certs');
  agent = createHttpsServer({ cert: await readFile(join(certs, 'apiserver.crt')), key: await readFile(join(certs, 'apiserver.key')) }, (req, res) => {
    if (req.url?.startsWith('/metrics')) {
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
      return res.end(`# TYPE agent_up gauge\nagent_up{path="${req.url}"} 1\n`);
    }
    res.writeHead(404);
    res.end('not here');
  });
  const agentPort = await listen(agent, podIp);

  await createNamespace(client, ns);
  const node = await client.post('/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'proxy-node' },
    status: { addresses: [{ type: 'InternalIP', address: podIp }], daemonEndpoints: { kubeletEndpoint: { Port: agentPort } } },
  });
  expectStatus(node, 201);
  const local = await client.post('/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'local-node' },
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: agentPort } } },
  });
  expectStatus(local, 201);
  await create(client, `/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', labels: { app: 'web' } },
    spec: { nodeName: 'proxy-node', containers: [{ name: 'app', image: 'registry.example/app:1.0', ports: [{ containerPort: backendPort }] }] },
  });
  const status = await client.patch(`/api/v1/namespaces/${ns}/pods/web-0/status`, 'application/merge-patch+json', {
    status: { phase: 'Running', podIP: podIp, podIPs: [{ ip: podIp }] },
  });
  expectStatus(status, 200);
  const service = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: backendPort }] },
  });
  for (const name of ['web', 'idle', 'starting']) await create(client, `/api/v1/namespaces/${ns}/services`, service(name));
  const address = { ip: podIp, targetRef: { kind: 'Pod', namespace: ns, name: 'web-0' } };
  const endpoints = (name: string, subsets: unknown[]) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets });
  await create(client, `/api/v1/namespaces/${ns}/endpoints`, endpoints('web', [{ addresses: [address], ports: [{ name: 'http', port: backendPort }] }]));
  await create(client, `/api/v1/namespaces/${ns}/endpoints`, endpoints('idle', []));
  await create(
    client,
    `/api/v1/namespaces/${ns}/endpoints`,
    endpoints('starting', [{ notReadyAddresses: [address], ports: [{ name: 'http', port: backendPort }] }]),
  );

  proxy = spawn(KUBECTL, ['proxy', '--port=0'], { env: { ...process.env, ...server.kubectlEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  proxyUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`kubectl proxy did not start: ${out}`)), 15_000);
    proxy.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Starting to serve on ([\d.]+:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(`http://${match[1]}`);
      }
    });
  });
}, 90_000);

afterAll(async () => {
  proxy?.kill();
  client?.close();
  backend?.close();
  agent?.close();
  await server?.stop();
});

const svc = `/api/v1/namespaces/${ns}/services`;
const pods = `/api/v1/namespaces/${ns}/pods`;

describe('services/<name>/proxy', () => {
  it('reaches a ready endpoint of the Service through kubectl proxy, by port number, name and scheme prefix', async () => {
    for (const id of ['web:80', 'web:http', 'http:web:80']) {
      const res = await curl(`${svc}/${id}/proxy/`);
      expect(res.code).toBe('200');
      expect(JSON.parse(res.body)).toMatchObject({ method: 'GET', url: '/' });
    }
    const last = seen[seen.length - 1];
    expect(last.headers['x-forwarded-uri']).toBe(`${svc}/http:web:80/proxy/`);
    expect(last.headers.authorization).toBeUndefined();
  });

  it('passes every method with its body, the path and the query string as sent', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await curl(
        `${svc}/web:80/proxy/api/items/7?q=a%20b&q=c&flag`,
        '-X',
        method,
        '--data-binary',
        `body of ${method}`,
        '-H',
        'Content-Type: text/plain',
      );
      expect(res.code).toBe('200');
      expect(JSON.parse(res.body)).toEqual({ method, url: '/api/items/7?q=a%20b&q=c&flag', body: `body of ${method}` });
    }
    const head = await curl(`${svc}/web:80/proxy/x`, '-I');
    expect(head.code).toBe('200');
    expect(head.headers).toMatch(/set-cookie: a=1/i);
    expect(head.headers).toMatch(/set-cookie: b=2/i);
  });

  it('answers 503 as Kubernetes does when the Service has no ready endpoint or no such port', async () => {
    const idle = await curl(`${svc}/idle:80/proxy/`);
    expect(idle.code).toBe('503');
    expect(JSON.parse(idle.body)).toMatchObject({
      kind: 'Status',
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'no endpoints available for service "idle"',
    });
    const starting = await curl(`${svc}/starting:80/proxy/`);
    expect(starting.code).toBe('503');
    expect(JSON.parse(starting.body).message).toBe('no endpoints available for service "starting:80"');
    const port = await curl(`${svc}/web:81/proxy/`);
    expect(JSON.parse(port.body).message).toBe('no service port 81 found for service "web"');
    const missing = await curl(`${svc}/nothing:80/proxy/`);
    expect(missing.code).toBe('404');
    expect(JSON.parse(missing.body).message).toBe('services "nothing" not found');
  });

  it("redirects the bare proxy root to its slash, and rewrites the target's redirects under the proxy prefix", async () => {
    const root = await curl(`${svc}/web:80/proxy?a=1`);
    expect(root.code).toBe('301');
    expect(root.headers).toMatch(new RegExp(`location: ${svc}/web:80/proxy/\\?a=1`, 'i'));
    const relative = await curl(`${svc}/web:80/proxy/redirect`);
    expect(relative.code).toBe('302');
    expect(relative.headers).toMatch(new RegExp(`location: ${svc}/web:80/proxy/landing\\?x=1\\r?$`, 'im'));
    const absolute = await curl(`${svc}/web:80/proxy/absolute-redirect`);
    expect(absolute.headers).toMatch(new RegExp(`location: ${svc}/web:80/proxy/landing/\\r?$`, 'im'));
    const elsewhere = await curl(`${svc}/web:80/proxy/elsewhere`);
    expect(elsewhere.headers).toMatch(/location: https:\/\/example\.com\/x\r?$/im);
  });

  it("drops the target's CORS headers and keeps the others", async () => {
    const res = await curl(`${svc}/web:80/proxy/cors`);
    expect(res.headers).not.toMatch(/access-control-allow-origin/i);
    expect(res.headers).toMatch(/x-kept: yes/i);
  });

  it('streams the answer as the target writes it', async () => {
    const started = Date.now();
    const firstChunkAt = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${proxyUrl}${svc}/web:80/proxy/stream`);
      const socket = connect(Number(url.port), url.hostname, () => socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`));
      socket.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('first')) {
          resolve(Date.now() - started);
          socket.destroy();
        }
      });
      socket.on('error', reject);
    });
    expect(firstChunkAt).toBeLessThan(1200);
  });

  it('passes a WebSocket upgrade through', async () => {
    const url = new URL(`${server.url}${svc}/web:80/proxy/ws?x=1`);
    const { connect: tlsConnect } = await import('node:tls');
    const reply = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: server.ca, rejectUnauthorized: false }, () =>
        socket.write(
          `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
        ),
      );
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    // Anonymous callers may not proxy: the upgrade is authorized like any request.
    expect(reply).toMatch(/^HTTP\/1\.1 (401|403)/);
    const admin = await adminUpgrade(`${svc}/web:80/proxy/ws?x=1`);
    expect(admin).toMatch(/^HTTP\/1\.1 101 Switching Protocols/);
    expect(admin).toContain('hello /ws?x=1');
  });

  it('refuses paths that step out of the proxied path', async () => {
    for (const path of ['/a/../../../secrets', '/a/%2e%2e/b', '/a%2fb', '/a/%2E/b', '/a%5cb', '/..']) {
      // Sent as is: an HTTP client library would resolve the dots before sending.
      const answer = await rawAdminRequest(`${svc}/web:80/proxy${path}`);
      expect([answer.split(' ')[1], path]).toEqual(['400', path]);
    }
    expect(seen.some((s) => s.url.includes('secrets') || /%(2f|5c|2e)/i.test(s.url))).toBe(false);
    expect((await client.get(`${svc}/bad:name:80:9/proxy/`)).status).toBe(400);
  });
});

/** One GET with its path exactly as given, as the administrator; the raw answer. */
async function rawAdminRequest(path: string): Promise<string> {
  const { connect: tlsConnect } = await import('node:tls');
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: server.ca, servername: undefined }, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer admin-token\r\nConnection: close\r\n\r\n`),
    );
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

/** An upgrade request as the administrator, through kubectl proxy (which passes upgrades). */
function adminUpgrade(path: string): Promise<string> {
  const url = new URL(`${proxyUrl}${path}`);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(
        `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('pods/<name>/proxy', () => {
  it('reaches the pod IP on its first declared port, or the port named', async () => {
    const res = await curl(`${pods}/web-0/proxy/`);
    expect(res.code).toBe('200');
    expect(JSON.parse(res.body)).toMatchObject({ url: '/' });
    const port = await curl(`${pods}/web-0:${backendPort}/proxy/some/path?k=v`);
    expect(JSON.parse(port.body)).toMatchObject({ url: '/some/path?k=v' });
  });

  it('refuses a pod whose IP is not a global unicast address, as Kubernetes does', async () => {
    await create(client, `${pods}`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'local' },
      spec: { nodeName: 'proxy-node', containers: [{ name: 'app', image: 'registry.example/app:1.0' }] },
    });
    await client.patch(`${pods}/local/status`, 'application/merge-patch+json', { status: { podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] } });
    const res = await curl(`${pods}/local:22/proxy/`);
    expect(res.code).toBe('400');
    expect(JSON.parse(res.body).message).toBe('address not allowed');
  });
});

describe('nodes/<name>/proxy', () => {
  it("reaches the node agent over the API server's connection to it", async () => {
    const res = await curl('/api/v1/nodes/proxy-node/proxy/metrics?x=1');
    expect(res.code).toBe('200');
    expect(res.body).toContain('agent_up{path="/metrics?x=1"} 1');
  });

  it("reaches another port of the node's address plainly", async () => {
    const res = await curl(`/api/v1/nodes/proxy-node:${backendPort}/proxy/from-node`);
    expect(res.code).toBe('200');
    expect(JSON.parse(res.body)).toMatchObject({ url: '/from-node' });
  });

  it('refuses a node whose address is loopback, on its agent port or any other, as Kubernetes 1.32 does', async () => {
    for (const id of ['local-node', 'local-node:22']) {
      const res = await curl(`/api/v1/nodes/${id}/proxy/metrics`);
      expect(res.code).toBe('400');
      expect(JSON.parse(res.body).message).toBe('address not allowed');
    }
  });
});

describe('authorization of the proxy subresources', () => {
  it('checks services/proxy, pods/proxy and nodes/proxy with the verb of the method', async () => {
    await as.withCertificate('prober', 'prober');
    const allow = (rules: unknown[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'service-prober' }, rules });
    await create(client, '/apis/rbac.authorization.k8s.io/v1/clusterroles', allow([{ apiGroups: [''], resources: ['services/proxy'], verbs: ['get'] }]));
    await create(client, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'service-prober' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'service-prober' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'prober' }],
    });
    const get = async (path: string) => runKubectl(['get', '--raw', path], as.env('prober')).then((r) => (r.code === 0 ? 'ok' : r.stderr));
    const { eventually } = await import('./support/api-fixtures');
    await eventually(async () => expect(await get(`${svc}/web:80/proxy/`)).toBe('ok'), 15_000);
    expect(await get(`${pods}/web-0/proxy/`)).toContain('Forbidden');
    expect(await get('/api/v1/nodes/proxy-node/proxy/metrics')).toContain('Forbidden');
    const post = await runKubectl(['create', '--raw', `${svc}/web:80/proxy/`, '-f', '-'], as.env('prober'));
    expect(post.stderr).toContain('Forbidden');
    const canI = await runKubectl(['auth', 'can-i', 'create', 'services/proxy', '-n', ns], as.env('prober'));
    expect(canI.stdout.trim()).toBe('no');
  });
});

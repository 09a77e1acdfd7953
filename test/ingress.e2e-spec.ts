// Ingress end to end: the built `svc-ingress` against a real API server process (RBAC, acting as
// npm start runs it, with the role and default class npm start writes), `kubectl create ingress`
// routing to a Service whose endpoints are two HTTP servers of this test on loopback addresses of its
// own (registered by an EndpointSlice, as a Service without a selector is), over HTTP and HTTPS by SNI.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { writeIdentityConnectionFile } from '@svc/apiserver';
import { Client, loadClientConfig } from '@svc/client';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startIngressProcess, type IngressProcess } from './support/ingress-process';
import { runKubectl } from './support/kubectl-run';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureIngressObjects } = require('../bin/ingress-controller') as { ensureIngressObjects: (config: string) => Promise<void> };

const NS = 'default';
/** Loopback addresses of this test's own for its two "pods". */
const POD_A = '127.0.34.1';
const POD_B = '127.0.34.2';

interface Answer {
  status: number;
  body: string;
  headers: IncomingMessage['headers'];
}

function get(port: number, host: string, path = '/', headers: Record<string, string> = {}, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET', headers: { host, ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.setTimeout(5000, () => req.destroy(new Error('no answer in 5 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A "pod": answers with its name, the path, the host and forwarded headers it saw, and the bytes of the body. */
function pod(name: string, address: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ pod: name, path: req.url, host: req.headers.host, proto: req.headers['x-forwarded-proto'], bytes }));
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve(server));
  });
}

describe('svc-ingress against an API server', () => {
  let apiserver: ApiServerProcess;
  let client: Client;
  let ingress: IngressProcess;
  const pods: Server[] = [];

  const kubectl = async (...args: string[]) => runKubectl(args, apiserver.kubectlEnv);

  beforeAll(async () => {
    apiserver = await startApiServerProcess({ args: ['--authorization-mode=RBAC'] });
    client = new Client(await loadClientConfig({ svcconfig: apiserver.kubeconfig }));
    const identity = join(apiserver.dir, 'ingress.svcconfig');
    await writeIdentityConnectionFile({
      connectionFile: apiserver.kubeconfig,
      certDir: join(apiserver.dir, 'certs'),
      path: identity,
      user: 'system:serviceaccount:kube-system:svc-ingress',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
    });
    // What npm start writes: the controller's role and binding, and the default class svc.
    await ensureIngressObjects(apiserver.kubeconfig);
    pods.push(await pod('a', POD_A, 0));
    const port = (pods[0].address() as AddressInfo).port;
    pods.push(await pod('b', POD_B, port));
    await client.services.create(
      { metadata: { name: 'web', namespace: NS }, spec: { ports: [{ name: 'http', port: 80, targetPort: port }] } },
      { namespace: NS },
    );
    await client.endpointSlices.create(
      {
        metadata: { name: 'web-pods', namespace: NS, labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'e2e' } },
        addressType: 'IPv4',
        endpoints: [
          { addresses: [POD_A], conditions: { ready: true } },
          { addresses: [POD_B], conditions: { ready: true } },
          { addresses: ['127.0.34.3'], conditions: { ready: false } },
        ],
        ports: [{ name: 'http', port, protocol: 'TCP' }],
      },
      { namespace: NS },
    );
    await client.services.create({ metadata: { name: 'empty', namespace: NS }, spec: { ports: [{ port: 80 }] } }, { namespace: NS });
    ingress = await startIngressProcess({ svcconfig: identity, bindAddress: '127.0.0.1', args: ['--publish-address=127.0.0.1', '--max-header-size=4096'] });
  }, 90_000);

  afterAll(async () => {
    await ingress?.stop();
    for (const server of pods) server.close();
    client?.close();
    await apiserver?.stop();
  });

  it('routes `kubectl create ingress` of the default class to the Service’s ready endpoints, round robin, and publishes its address', async () => {
    const created = await kubectl('create', 'ingress', 'web', '--rule=web.example/*=web:80');
    expect(created.stderr).toBe('');
    const stored = await client.ingresses.get('web', { namespace: NS });
    expect(stored.spec?.ingressClassName).toBe('svc');
    expect(stored.spec?.rules?.[0].http?.paths[0]).toEqual({ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } });

    const first = await eventually(
      async () => {
        const answer = await get(ingress.httpPort, 'web.example', '/shop/cart?x=1');
        expect(answer.status).toBe(200);
        return answer;
      },
      15_000,
      100,
    );
    const seen = new Set([JSON.parse(first.body).pod as string]);
    for (let i = 0; i < 3; i++) seen.add(JSON.parse((await get(ingress.httpPort, 'web.example', '/')).body).pod as string);
    expect([...seen].sort()).toEqual(['a', 'b']);
    expect(JSON.parse(first.body)).toMatchObject({ path: '/shop/cart?x=1', host: 'web.example', proto: 'http' });

    // A body streams through whole.
    const big = await get(ingress.httpPort, 'web.example', '/upload', {}, Buffer.alloc(3 * 1024 * 1024, 7));
    expect(JSON.parse(big.body).bytes).toBe(3 * 1024 * 1024);

    await eventually(
      async () => expect((await client.ingresses.get('web', { namespace: NS })).status?.loadBalancer?.ingress?.[0]?.ip).toBe('127.0.0.1'),
      15_000,
      100,
    );
    const table = (await kubectl('get', 'ingress', 'web')).stdout.split('\n');
    expect(table[0].split(/\s+/)).toEqual(['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    expect(table[1].split(/\s+/).slice(0, 5)).toEqual(['web', 'svc', 'web.example', '127.0.0.1', '80']);
    expect((await kubectl('get', 'ingressclass')).stdout).toMatch(/^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\nsvc\s+svc\.io\/ingress\s+<none>\s+/);
  }, 60_000);

  it('answers 404 for no rule, 503 for a Service without ready endpoints, 431 for an oversized head', async () => {
    await client.ingresses.create(
      {
        metadata: { name: 'paths', namespace: NS },
        spec: {
          rules: [
            {
              host: '*.shop.example',
              http: {
                paths: [
                  { path: '/empty', pathType: 'Exact', backend: { service: { name: 'empty', port: { number: 80 } } } },
                  { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } },
                ],
              },
            },
          ],
        },
      },
      { namespace: NS },
    );
    await eventually(async () => expect((await get(ingress.httpPort, 'a.shop.example', '/x')).status).toBe(200), 15_000, 100);
    const empty = await get(ingress.httpPort, 'a.shop.example', '/empty');
    expect(empty.status).toBe(503);
    expect(empty.body).toContain('service default/empty has no ready endpoints');
    expect((await get(ingress.httpPort, 'a.shop.example', '/empty/more')).status).toBe(200);
    expect((await get(ingress.httpPort, 'a.b.shop.example', '/x')).status).toBe(404);
    expect((await get(ingress.httpPort, 'other.example', '/')).status).toBe(404);
    expect((await get(ingress.httpPort, 'web.example', '/', { 'x-filler': 'f'.repeat(8192) })).status).toBe(431);
  }, 30_000);

  it('serves TLS with the certificate of the Ingress’s Secret for its host, a default one for other names', async () => {
    const pems = await generate([{ name: 'commonName', value: 'web.example' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'web.example' }] }],
    });
    await client.secrets.create(
      {
        metadata: { name: 'web-tls', namespace: NS },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': Buffer.from(pems.cert).toString('base64'), 'tls.key': Buffer.from(pems.private).toString('base64') },
      },
      { namespace: NS },
    );
    await client.ingresses.patch('web', { spec: { tls: [{ hosts: ['web.example'], secretName: 'web-tls' }] } }, 'merge', { namespace: NS });
    const https = (servername: string) =>
      new Promise<{ subject: string; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: ingress.httpsPort,
            servername,
            path: '/',
            headers: { host: servername },
            ca: pems.cert,
            rejectUnauthorized: servername === 'web.example',
            agent: false,
          },
          (res) => {
            const subject = String((res.socket as TLSSocket).getPeerCertificate().subject?.CN);
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ subject, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const served = await eventually(
      async () => {
        const answer = await https('web.example');
        expect(answer.subject).toBe('web.example');
        return answer;
      },
      15_000,
      100,
    );
    expect(JSON.parse(served.body)).toMatchObject({ host: 'web.example', proto: 'https' });
    expect((await https('other.example')).subject).toBe('svc ingress default certificate');
    expect((await kubectl('get', 'ingress', 'web')).stdout).toMatch(/\nweb\s+svc\s+web\.example\s+127\.0\.0\.1\s+80, 443\s/);
  }, 30_000);

  it('refuses bad Ingresses and NetworkPolicies with Kubernetes’ messages', async () => {
    const bad = await client.ingresses
      .create(
        {
          metadata: { name: 'bad', namespace: NS },
          spec: { rules: [{ http: { paths: [{ path: 'api', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
        },
        { namespace: NS },
      )
      .catch((e: unknown) => e as Error);
    expect((bad as Error).message).toContain('spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path');
    const policy = await client.networkPolicies
      .create(
        { metadata: { name: 'bad', namespace: NS }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/40' } }] }] } },
        { namespace: NS },
      )
      .catch((e: unknown) => e as Error);
    expect((policy as Error).message).toContain(
      'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/40": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    );
    const explained = (await kubectl('explain', 'ingress.spec.rules.http.paths.pathType')).stdout;
    expect(explained).toContain('GROUP:      networking.k8s.io');
    expect(explained).toContain('FIELD: pathType <string>');
    expect(explained).toContain('How the path is matched: Exact');
    await client.networkPolicies.create({ metadata: { name: 'db', namespace: NS }, spec: { podSelector: { matchLabels: { app: 'db' } } } }, { namespace: NS });
    expect((await kubectl('get', 'netpol')).stdout).toMatch(/^NAME\s+POD-SELECTOR\s+AGE\ndb\s+app=db\s+/);
    expect((await client.networkPolicies.get('db', { namespace: NS })).spec?.policyTypes).toEqual(['Ingress']);
  }, 30_000);
});

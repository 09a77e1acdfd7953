import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_ACCESS, MetricsApi, routeOf, usageList, type MetaOnly } from './metrics-api';

const usage = { cpuNanoCores: 250_000_000, memoryBytes: 3 * 1024 * 1024, timestamp: Date.UTC(2026, 0, 2, 3, 4, 5, 900), windowMs: 15_012 };
const nodes: MetaOnly[] = [{ metadata: { name: 'b', labels: { zone: 'x' } } }, { metadata: { name: 'a' } }, { metadata: { name: 'fresh' } }];
const pods: MetaOnly[] = [
  { metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } } },
  { metadata: { name: 'db', namespace: 'data', labels: { app: 'db' } } },
  { metadata: { name: 'new', namespace: 'default' } },
];

const api = new MetricsApi({
  nodes: () => nodes,
  node: (name) => nodes.find((n) => n.metadata?.name === name),
  pods: (namespace) => pods.filter((p) => namespace === undefined || p.metadata?.namespace === namespace),
  pod: (namespace, name) => pods.find((p) => p.metadata?.namespace === namespace && p.metadata?.name === name),
  nodeUsage: (name) => (name === 'fresh' ? undefined : usage),
  podUsage: (_namespace, name) =>
    name === 'new'
      ? undefined
      : {
          containers: [
            { name: 'app', usage },
            { name: 'side', usage: { ...usage, cpuNanoCores: 1_000_000 } },
          ],
          timestamp: usage.timestamp,
          windowMs: usage.windowMs,
        },
});

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => api.serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string, method = 'GET', accept = 'application/json'): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { Accept: accept } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('MetricsApi', () => {
  it('lists NodeMetrics by name, with the usage, the reading time to the second and the window', async () => {
    const { status, body } = await get('/apis/metrics.k8s.io/v1beta1/nodes');
    expect(status).toBe(200);
    expect(body).toMatchObject({ kind: 'NodeMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {} });
    expect(body.items.map((n: any) => n.metadata.name)).toEqual(['a', 'b']);
    expect(body.items[1]).toMatchObject({
      metadata: { name: 'b', labels: { zone: 'x' } },
      timestamp: '2026-01-02T03:04:05Z',
      window: '15.012s',
      usage: { cpu: '250m', memory: '3Mi' },
    });
    const one = await get('/apis/metrics.k8s.io/v1beta1/nodes/a');
    expect(one.body).toMatchObject({ kind: 'NodeMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'a' } });
  });

  it('answers PodMetrics of a namespace or all, by label and field selectors', async () => {
    expect((await get('/apis/metrics.k8s.io/v1beta1/pods')).body.items.map((p: any) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual([
      'data/db',
      'default/web',
    ]);
    expect((await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods')).body.items.map((p: any) => p.metadata.name)).toEqual(['web']);
    expect((await get('/apis/metrics.k8s.io/v1beta1/pods?labelSelector=app%20in%20(db)')).body.items.map((p: any) => p.metadata.name)).toEqual(['db']);
    expect((await get('/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=metadata.namespace%3Ddata')).body.items.map((p: any) => p.metadata.name)).toEqual([
      'db',
    ]);
    const pod = (await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web')).body;
    expect(pod.containers).toEqual([
      { name: 'app', usage: { cpu: '250m', memory: '3Mi' } },
      { name: 'side', usage: { cpu: '1m', memory: '3Mi' } },
    ]);
  });

  it("answers NotFound in metrics-server's words: the lister's for an unknown object, its own for one without readings", async () => {
    expect(await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nothing')).toMatchObject({
      status: 404,
      body: { message: 'pods "nothing" not found', reason: 'NotFound' },
    });
    expect((await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/new')).body.message).toBe('podmetrics.metrics.k8s.io "default/new" not found');
    expect((await get('/apis/metrics.k8s.io/v1beta1/nodes/fresh')).body.message).toBe('nodemetrics.metrics.k8s.io "fresh" not found');
    expect((await get('/apis/metrics.k8s.io/v1beta1/nodes/nowhere')).body.message).toBe('node "nowhere" not found');
  });

  it('refuses writes, watches, bad selectors and unknown paths with a Status', async () => {
    expect((await get('/apis/metrics.k8s.io/v1beta1/nodes', 'POST')).status).toBe(405);
    expect((await get('/apis/metrics.k8s.io/v1beta1/nodes?watch=true')).status).toBe(405);
    expect((await get('/apis/metrics.k8s.io/v1beta1/pods?labelSelector=a%3D%3D%3Db')).status).toBe(400);
    expect((await get('/apis/metrics.k8s.io/v1beta1/nodes//x')).status).toBe(404);
    expect((await get('/apis/metrics.k8s.io/v1beta1/deployments')).status).toBe(404);
  });

  it('serves discovery of its group and a Table when asked', async () => {
    expect((await get('/apis')).body.groups[0].preferredVersion.groupVersion).toBe('metrics.k8s.io/v1beta1');
    expect((await get('/apis/metrics.k8s.io')).body).toMatchObject({ kind: 'APIGroup', name: 'metrics.k8s.io' });
    const table = (await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', 'GET', 'application/json;as=Table;v=v1;g=meta.k8s.io')).body;
    expect(table.kind).toBe('Table');
    expect(table.rows[0].cells).toEqual(['web', '251m', '6Mi', '15.012s']);
  });
});

describe('METRICS_ACCESS', () => {
  const req = (method: string, url: string) => ({ method, url }) as never;
  it('authorizes resource requests as their verb on metrics.k8s.io, others as non-resource URLs', () => {
    expect(METRICS_ACCESS.attributes(req('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/ns/pods'), '/apis/metrics.k8s.io/v1beta1/namespaces/ns/pods')).toEqual(
      {
        resourceAttributes: { verb: 'list', group: 'metrics.k8s.io', resource: 'pods', namespace: 'ns', name: undefined },
      },
    );
    expect(METRICS_ACCESS.attributes(req('GET', '/apis/metrics.k8s.io/v1beta1/nodes/n'), '/apis/metrics.k8s.io/v1beta1/nodes/n')).toMatchObject({
      resourceAttributes: { verb: 'get', resource: 'nodes', name: 'n' },
    });
    expect(METRICS_ACCESS.attributes(req('GET', '/metrics'), '/metrics')).toEqual({ nonResourceAttributes: { path: '/metrics', verb: 'get' } });
    const message = METRICS_ACCESS.forbidden(
      { name: 'bob', groups: [] },
      { resourceAttributes: { verb: 'get', group: 'metrics.k8s.io', resource: 'nodes', name: 'n' } },
    );
    expect(message).toBe('nodes.metrics.k8s.io "n" is forbidden: User "bob" cannot get resource "nodes" in API group "metrics.k8s.io" at the cluster scope');
  });

  it('routes only exact paths', () => {
    expect(routeOf('/apis/metrics.k8s.io/v1beta1/namespaces/ns/pods/p')).toEqual({ kind: 'resource', resource: 'pods', namespace: 'ns', name: 'p' });
    expect(routeOf('/apis/metrics.k8s.io/v1beta1/namespaces/ns/pods/p/x')).toBeUndefined();
    expect(routeOf('/apis/metrics.k8s.io/v1beta1/nodes/%E0%A4%A')).toBeUndefined();
  });

  it('writes CPU in canonical nanocores and memory in binary units', () => {
    expect(usageList(123_456_789, 1000)).toEqual({ cpu: '123456789n', memory: '1k' });
    expect(usageList(0, 24035328)).toEqual({ cpu: '0', memory: '23472Ki' });
  });
});

import { request as httpsRequest } from 'node:https';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { httpsFetch, type HttpsResponse } from './support/https-client';
import { kubectl } from './support/kubectl-run';

/**
 * A smoke test of the resource layer through the built `svc-apiserver` process: the verbs on a
 * ConfigMap and a Deployment over HTTPS, a watch stream, and kubectl with the client connection file.
 * The resourceVersion tables and kubectl in depth are covered by the other end-to-end suites.
 */
describe('svc-apiserver resources', () => {
  let server: ApiServerProcess;

  beforeAll(async () => {
    server = await startApiServerProcess();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  const call = (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<HttpsResponse> =>
    httpsFetch(`${server.url}${path}`, {
      method,
      ca: server.ca,
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': contentType },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const json = (res: HttpsResponse): Record<string, any> => JSON.parse(res.body) as Record<string, any>;

  /** Opens a watch and collects its events until `count` arrived (or a few seconds passed). */
  function watch(path: string, count: number): { events: Promise<Array<{ type: string; object: Record<string, any> }>> } {
    const events: Array<{ type: string; object: Record<string, any> }> = [];
    const done = new Promise<typeof events>((resolve, reject) => {
      const req = httpsRequest(`${server.url}${path}`, { ca: server.ca, agent: false }, (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json');
        let buffered = '';
        const timer = setTimeout(() => finish(), 8_000);
        const finish = (): void => {
          clearTimeout(timer);
          req.destroy();
          resolve(events);
        };
        res.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          let newline: number;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buffered.slice(0, newline)));
            buffered = buffered.slice(newline + 1);
          }
          if (events.length >= count) finish();
        });
        res.on('end', finish);
      });
      req.on('error', (error) => (events.length >= count ? resolve(events) : reject(error)));
      req.end();
    });
    return { events: done };
  }

  it('serves the bootstrap namespaces, also to kubectl', async () => {
    const list = await call('GET', '/api/v1/namespaces');
    expect(list.status).toBe(200);
    expect(json(list).items.map((n: { metadata: { name: string } }) => n.metadata.name)).toEqual(
      expect.arrayContaining(['default', 'svc-system', 'svc-public', 'svc-node-lease']),
    );
    const out = await kubectl(['get', 'namespaces'], server.kubectlEnv);
    expect(out.stdout.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+AGE$/);
    expect(out.stdout).toMatch(/^default\s+Active\s+\d+[smh]/m);
  }, 30_000);

  it('creates, reads, lists, watches, patches and deletes a ConfigMap', async () => {
    const base = '/api/v1/namespaces/default/configmaps';
    const stream = watch(`${base}?watch=1&labelSelector=smoke%3Dyes`, 3);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const created = await call('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'smoke', labels: { smoke: 'yes' } }, data: { a: '1' } });
    expect(created.status).toBe(201);
    expect(json(created).metadata).toMatchObject({ name: 'smoke', namespace: 'default', uid: expect.any(String), resourceVersion: expect.any(String) });

    const read = await call('GET', `${base}/smoke`);
    expect(json(read)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });

    const list = await call('GET', `${base}?labelSelector=smoke%3Dyes`);
    expect(json(list)).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', items: [{ metadata: { name: 'smoke' } }] });

    const patched = await call('PATCH', `${base}/smoke`, { data: { b: '2' } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    expect(json(patched).data).toEqual({ a: '1', b: '2' });

    const deleted = await call('DELETE', `${base}/smoke`);
    expect(deleted.status).toBe(200);
    expect(json(deleted)).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'smoke', kind: 'configmaps' } });
    expect((await call('GET', `${base}/smoke`)).status).toBe(404);

    const events = await stream.events;
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[2].object.metadata.name).toBe('smoke');
  }, 30_000);

  it('creates a Deployment, scales it, keeps its status apart, and deletes it', async () => {
    const base = '/apis/apps/v1/namespaces/default/deployments';
    const manifest = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: web',
      'spec:',
      '  replicas: 2',
      '  selector:',
      '    matchLabels: {app: web}',
      '  template:',
      '    metadata:',
      '      labels: {app: web}',
      '    spec:',
      '      containers:',
      '      - name: main',
      '        image: nginx:1.25',
      '',
    ].join('\n');
    const created = await call('POST', base, manifest, 'application/yaml');
    expect(created.status).toBe(201);
    expect(json(created).metadata.generation).toBe(1);
    expect(json(created).spec.strategy).toMatchObject({ type: 'RollingUpdate' });

    const scaled = await call('PATCH', `${base}/web/scale`, { spec: { replicas: 4 } }, 'application/merge-patch+json');
    expect(json(scaled)).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 4 }, status: { selector: 'app=web' } });

    const status = await call('PATCH', `${base}/web/status`, { status: { replicas: 4, readyReplicas: 1 } }, 'application/merge-patch+json');
    expect(json(status).status).toMatchObject({ replicas: 4, readyReplicas: 1 });
    const current = json(await call('GET', `${base}/web`));
    expect(current.metadata.generation).toBe(2);

    const table = await httpsFetch(`${server.url}${base}`, { ca: server.ca, headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(JSON.parse(table.body)).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      rows: [{ cells: ['web', '1/4', 0, 0, expect.any(String), 'main', 'nginx:1.25', 'app=web'] }],
    });

    const stale = await call('PUT', `${base}/web`, { ...current, metadata: { ...current.metadata, resourceVersion: '1' } });
    expect(stale.status).toBe(409);
    expect(json(stale)).toMatchObject({ reason: 'Conflict' });

    const deleted = await call('DELETE', `${base}/web`);
    expect(deleted.status).toBe(200);
    expect((await call('GET', `${base}/web`)).status).toBe(404);
  }, 30_000);
});

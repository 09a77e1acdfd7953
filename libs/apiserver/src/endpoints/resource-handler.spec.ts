import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme, configMapDefinition, type KindDefinition, type Scheme } from '@svc/api';
import { decodeEnvelope, encodeObjectEnvelope } from '@svc/machinery';
import { EmbeddedStorage } from '@svc/storage';
import { servingConfig } from '../config';
import { startApiServer, type ApiServerHandle } from '../start-api-server';
import { createResourceRegistries, type ResourcesOptions } from '../registry/create-registries';
import { resourceLayer } from './resource-layer';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json: any;
}

describe('ResourceHandler over HTTPS', () => {
  let dir: string;
  let storage: EmbeddedStorage;
  let scheme: Scheme;
  let server: ApiServerHandle;
  let ca: string;

  function call(method: string, path: string, options: { body?: unknown; type?: string; accept?: string } = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      if (options.accept) headers.Accept = options.accept;
      let payload: Buffer | undefined;
      if (options.body !== undefined) {
        headers['Content-Type'] = options.type ?? 'application/json';
        payload = Buffer.isBuffer(options.body) ? options.body : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
        // Node sends a DELETE body only with a declared length.
        headers['Content-Length'] = String(payload.length);
      }
      const req = httpsRequest(`${server.url}${path}`, { method, headers, ca, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          let json: unknown;
          try {
            json = JSON.parse(body.toString());
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The first `count` lines of a watch stream. */
  function watchLines(path: string, count: number, accept?: string): Promise<any[]> {
    return new Promise((resolve, reject) => {
      const lines: any[] = [];
      const req = httpsRequest(`${server.url}${path}`, { ca, agent: false, headers: accept ? { Accept: accept } : {} }, (res) => {
        let buffered = '';
        const timer = setTimeout(() => done(), 3_000);
        const done = (): void => {
          clearTimeout(timer);
          req.destroy();
          resolve(lines);
        };
        res.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
            lines.push(JSON.parse(buffered.slice(0, at)));
            buffered = buffered.slice(at + 1);
          }
          if (lines.length >= count) done();
        });
        res.on('end', done);
      });
      req.on('error', reject);
      req.end();
    });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-router-'));
    storage = EmbeddedStorage.open({ dataDir: join(dir, 'data'), compactionIntervalMs: 0, tooLargeWaitMs: 200 });
    scheme = builtinScheme();
    // A deprecated version of a kind, as a CRD version can be.
    const deprecated: KindDefinition = {
      ...configMapDefinition,
      group: 'example.com',
      version: 'v1beta1',
      deprecation: { deprecated: true, warning: 'example.com/v1beta1 ConfigMap is going away' },
    };
    scheme.register(deprecated);
    const options: ResourcesOptions = {
      storePrefix: '/registry',
      watchCache: true,
      watchCacheSizes: ['secrets#0'],
      deleteCollectionWorkers: 2,
      storeCountMetricPollPeriodMs: 0,
      minRequestTimeoutSeconds: 60,
      maxRequestBodyBytes: 3 * 1024 * 1024,
    };
    const registries = createResourceRegistries({ storage, scheme, options });
    server = await startApiServer(
      servingConfig({ bindAddress: '127.0.0.1', securePort: 0, certDir: join(dir, 'certs'), svcconfigOut: '', minRequestTimeoutSeconds: 60 }),
      [resourceLayer({ storage, scheme, options, registries })],
      { logger: false, stdout: () => undefined },
    );
    ca = readFileSync(join(dir, 'certs', 'ca.crt'), 'utf8');
    for (let i = 0; i < 100 && (await call('GET', '/api/v1/namespaces/default')).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });

  afterAll(async () => {
    await server?.close();
    await storage?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 404 for unknown resources and removed versions, 405 for a wrong method', async () => {
    expect((await call('GET', '/api/v1/nothings')).json).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
    // With Kubernetes' empty details, which kubectl reads without a nil check (kubectl debug panicked without them).
    expect((await call('PATCH', '/api/v1/namespaces/default/pods/x/nothing', { body: {} })).json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
    const removed = await call('GET', '/apis/apps/v1beta1/namespaces/default/deployments');
    expect(removed.json).toMatchObject({ code: 404, message: expect.stringContaining('use apps/v1') });
    expect((await call('POST', '/api/v1/namespaces/default/configmaps/x', { body: {} })).json).toMatchObject({ code: 405, reason: 'MethodNotAllowed' });
    expect((await call('POST', '/api/v1/configmaps', { body: {} })).status).toBe(405);
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/x/scale')).status).toBe(404);
    expect((await call('GET', '/api/v1/namespaces/default/nodes')).status).toBe(404);
  });

  it('passes paths that are not resources on', async () => {
    expect((await call('GET', '/healthz')).status).toBe(200);
  });

  it('creates with warnings for unknown and duplicate fields, refuses them under Strict', async () => {
    const warned = await call('POST', '/api/v1/namespaces/default/configmaps', { body: '{"metadata":{"name":"w"},"data":{},"spec":{"x":1},"data":{"a":"1"}}' });
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe('299 - "unknown field \\"spec\\"", 299 - "duplicate field \\"data\\""');
    const strict = await call('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { body: { metadata: { name: 's' }, spec: {} } });
    expect(strict.json).toMatchObject({ code: 400, message: 'strict decoding error: unknown field "spec"' });
    expect((await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=Foo', { body: { metadata: { name: 'd' } } })).json).toMatchObject({
      code: 400,
      message: 'dryRun: Unsupported value: "Foo": supported values: "All"',
    });
    expect((await call('POST', '/api/v1/namespaces/default/configmaps', { body: 'a=b', type: 'text/plain' })).status).toBe(415);
  });

  it('negotiates Tables, metadata-only views, YAML, the protobuf envelope, and 406', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'views' }, data: { a: '1' } } });
    const table = await call('GET', '/api/v1/namespaces/default/configmaps/views', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.headers['content-type']).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(table.json).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      columnDefinitions: [{ name: 'Name' }, { name: 'Data' }, { name: 'Age' }],
      rows: [{ cells: ['views', 1, expect.any(String)], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'views' } } }],
    });
    const partial = await call('GET', '/api/v1/namespaces/default/configmaps', { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.svc.io' });
    expect(partial.json).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.svc.io/v1' });
    const yaml = await call('GET', '/api/v1/namespaces/default/configmaps/views', { accept: 'application/yaml' });
    expect(yaml.body.toString()).toContain('kind: ConfigMap\n');
    const proto = await call('GET', '/api/v1/namespaces/default/configmaps/views', { accept: 'application/vnd.svc.protobuf' });
    expect(proto.headers['content-type']).toBe('application/vnd.svc.protobuf');
    const envelope = decodeEnvelope(proto.body);
    expect(envelope).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', contentType: 'application/json' });
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/views', { accept: 'text/html' })).json).toMatchObject({ code: 406 });
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: Buffer.from(encodeObjectEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-proto' } })),
      type: 'application/vnd.svc.protobuf',
    });
    expect(created.status).toBe(201);
    const head = await call('HEAD', '/api/v1/namespaces/default/configmaps/views');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('warns on deprecated versions', async () => {
    const res = await call('GET', '/apis/example.com/v1beta1/namespaces/default/configmaps');
    expect(res.status).toBe(200);
    expect(res.headers.warning).toBe('299 - "example.com/v1beta1 ConfigMap is going away"');
    expect((await server.metrics.render()).body).toContain('apiserver_requested_deprecated_apis{group="example.com",version="v1beta1",resource="configmaps"');
  });

  it('streams watch events, as Tables too, and by the legacy watch path', async () => {
    const plain = watchLines('/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dwatched', 2);
    const tables = watchLines('/api/v1/watch/namespaces/default/configmaps/watched', 1, 'application/json;as=Table;v=v1;g=meta.k8s.io');
    await new Promise((r) => setTimeout(r, 200));
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'watched' } } });
    await call('DELETE', '/api/v1/namespaces/default/configmaps/watched');
    expect((await plain).map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    const [table] = await tables;
    expect(table).toMatchObject({ type: 'ADDED', object: { kind: 'Table', rows: [{ cells: ['watched', 0, expect.any(String)] }] } });
  });

  it('frames a protobuf watch as length-prefixed envelopes', async () => {
    const frames = await new Promise<Buffer>((resolve, reject) => {
      const req = httpsRequest(
        `${server.url}/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dviews`,
        { ca, agent: false, headers: { Accept: 'application/vnd.svc.protobuf' } },
        (res) => {
          expect(res.headers['content-type']).toBe('application/vnd.svc.protobuf;stream=watch');
          res.once('data', (chunk: Buffer) => {
            req.destroy();
            resolve(chunk);
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    const length = frames.readUInt32BE(0);
    const envelope = decodeEnvelope(frames.subarray(4, 4 + length));
    expect(envelope.kind).toBe('WatchEvent');
    expect(JSON.parse(Buffer.from(envelope.raw).toString())).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'views' } } });
  });

  it('answers a watch start older than the history with an ERROR event (secrets are not cached here)', async () => {
    await call('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'old-1' } } });
    await call('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'old-2' } } });
    await storage.compact(await storage.currentRevision());
    const [event] = await watchLines('/api/v1/namespaces/default/secrets?watch=1&resourceVersion=2', 1);
    expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  });

  it('deletes with options from the body, and deletes collections', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'held', finalizers: ['example.com/x'], labels: { batch: 'b' } } },
    });
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'free', labels: { batch: 'b' } } } });
    const wrongUid = await call('DELETE', '/api/v1/namespaces/default/configmaps/held', {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } },
    });
    expect(wrongUid.json).toMatchObject({ code: 409, reason: 'Conflict' });
    const orphan = await call('DELETE', '/api/v1/namespaces/default/configmaps/free?propagationPolicy=Nope');
    expect(orphan.json).toMatchObject({ code: 422 });
    const collection = await call('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=batch%3Db');
    expect(collection.json).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(collection.json.items.map((i: any) => i.metadata.name).sort()).toEqual(['free', 'held']);
    const held = (await call('GET', '/api/v1/namespaces/default/configmaps/held')).json;
    expect(held.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/free')).status).toBe(404);
  });

  it('refuses to delete the default namespace and serves the finalize subresource', async () => {
    expect((await call('DELETE', '/api/v1/namespaces/default')).json).toMatchObject({ code: 403, reason: 'Forbidden' });
    await call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'short-lived' } } });
    const terminating = await call('DELETE', '/api/v1/namespaces/short-lived');
    expect(terminating.json).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    expect((await call('POST', '/api/v1/namespaces/short-lived/configmaps', { body: { metadata: { name: 'late' } } })).json).toMatchObject({ code: 403 });
    const finalized = await call('PUT', '/api/v1/namespaces/short-lived/finalize', { body: { metadata: { name: 'short-lived' }, spec: { finalizers: [] } } });
    expect(finalized.status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/short-lived')).status).toBe(404);
  });
});

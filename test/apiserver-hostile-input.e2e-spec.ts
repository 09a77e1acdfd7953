import { connect } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigMap, Secret, Status } from '@svc/api';
import { ApiClient } from './support/api-client';
import {
  JSON_PATCH,
  MERGE_PATCH,
  STRATEGIC_MERGE_PATCH,
  configMap,
  createNamespace,
  deployment,
  eventually,
  expectFailure,
  expectStatus,
  paths,
} from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { httpsFetch } from './support/https-client';

// Malformed and hostile requests against the real svc-apiserver process: each is refused with a 4xx
// Status, leaves stored objects as they were, and the process keeps answering.

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'hostile';
const APPLY_PATCH = 'application/apply-patch+yaml';
const LIMIT = 1000;

const GREETINGS_CRD = {
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'blobs.deep.example.com' },
  spec: {
    group: 'deep.example.com',
    scope: 'Namespaced',
    names: { plural: 'blobs', singular: 'blob', kind: 'Blob', listKind: 'BlobList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-svc-preserve-unknown-fields': true } } } },
      },
    ],
  },
};
const blobs = `/apis/deep.example.com/v1/namespaces/${ns}/blobs`;

/** `[[[...1...]]]` with `levels` arrays. */
function nestedArrays(levels: number): string {
  return `${'['.repeat(levels)}1${']'.repeat(levels)}`;
}

/** A Blob whose whole body nests `depth` levels: the object, spec, then arrays. */
function deepBlob(name: string, depth: number): string {
  return `{"apiVersion":"deep.example.com/v1","kind":"Blob","metadata":{"name":"${name}"},"spec":{"deep":${nestedArrays(depth - 2)}}}`;
}

async function expectAlive(): Promise<void> {
  const started = Date.now();
  const ready = await httpsFetch(`${server.url}/readyz`, { ca: server.ca });
  expect(ready.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(1000);
}

function statusOf(text: string): Status {
  const status = JSON.parse(text) as Status;
  expect(status.kind).toBe('Status');
  return status;
}

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
  await createNamespace(client, ns);
  expectStatus(await client.post('/apis/apiextensions.svc.io/v1/customresourcedefinitions', GREETINGS_CRD), 201);
  await eventually(async () => expect((await client.get(blobs)).status).toBe(200), 15_000);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

describe('routing', () => {
  it('answers 404 to an empty path segment and deletes nothing', async () => {
    for (const name of ['c1', 'c2', 'c3']) expectStatus(await client.post(paths.configMaps(ns), configMap(name, { k: name })), 201);
    expectFailure(await client.delete(`/api/v1/namespaces/${ns}/configmaps//c1`), 404, 'NotFound');
    expectFailure(await client.delete(`/api/v1/namespaces/${ns}/configmaps/`), 404, 'NotFound');
    expectFailure(await client.delete(`/api/v1/namespaces//configmaps`), 404, 'NotFound');
    expectFailure(await client.get(`/api/v1/namespaces//configmaps`), 404, 'NotFound');
    expectFailure(await client.post(`/api/v1/namespaces/${ns}/configmaps/`, configMap('c4')), 404, 'NotFound');
    expectFailure(await client.get(`/api/v1/namespaces/${ns}/configmaps/c1/`), 404, 'NotFound');
    const list = await client.get<{ items: ConfigMap[] }>(paths.configMaps(ns));
    expect(list.body.items.map((c) => c.metadata?.name).sort()).toEqual(['c1', 'c2', 'c3']);
  });
});

describe('a patched object keeps its identity', () => {
  const name = 'guarded';
  let before: ConfigMap;

  beforeAll(async () => {
    const res = await client.post<ConfigMap>(paths.configMaps(ns), {
      ...configMap(name, { k: 'v' }, { team: 'a' }),
      metadata: { name, labels: { team: 'a' }, annotations: { note: 'x' }, finalizers: ['example.com/keep'] },
    });
    expectStatus(res, 201);
    before = res.body;
  });

  afterAll(async () => {
    await client.patch(paths.configMap(ns, name), MERGE_PATCH, { metadata: { finalizers: null } });
  });

  it.each([
    ['a merge patch of metadata: null', MERGE_PATCH, { metadata: null }, 400],
    ['a strategic merge patch deleting the object', STRATEGIC_MERGE_PATCH, { $patch: 'delete' }, 400],
    ['a strategic merge patch replacing the object', STRATEGIC_MERGE_PATCH, { $patch: 'replace', data: { k: 'w' } }, 400],
    ['a JSON patch removing metadata', JSON_PATCH, [{ op: 'remove', path: '/metadata' }], 400],
    ['a JSON patch renaming the object', JSON_PATCH, [{ op: 'replace', path: '/metadata/name', value: 'other' }], 400],
    ['a JSON patch replacing the whole document', JSON_PATCH, [{ op: 'replace', path: '', value: { data: {} } }], 400],
    ['a JSON patch turning the object into a string', JSON_PATCH, [{ op: 'replace', path: '', value: 'x' }], 422],
    ['a JSON patch changing the kind', JSON_PATCH, [{ op: 'replace', path: '/kind', value: 'Secret' }], 400],
    ['a merge patch changing the namespace', MERGE_PATCH, { metadata: { namespace: 'default' } }, 400],
  ])('refuses %s with a 4xx and changes nothing', async (_what, type, body, code) => {
    const res = await client.patch(paths.configMap(ns, name), type, body);
    expect(res.status).toBe(code);
    expect(statusOf(res.text).code).toBe(code);
    const after = await client.get<ConfigMap>(paths.configMap(ns, name));
    expect(after.body).toEqual(before);
  });

  it('refuses a status patch of metadata: null on a kind with a status subresource', async () => {
    expectStatus(await client.post(paths.deployments(ns), deployment('guarded-deploy')), 201);
    const res = await client.patch(`${paths.deployment(ns, 'guarded-deploy')}/status`, MERGE_PATCH, { metadata: null });
    expect(res.status).toBe(400);
  });

  it('refuses a scale patch that renames the Scale', async () => {
    const res = await client.patch(`${paths.deployment(ns, 'guarded-deploy')}/scale`, MERGE_PATCH, { metadata: { name: 'other' } });
    expect(res.status).toBe(400);
  });
});

describe('nesting depth', () => {
  it('refuses YAML nested 10,000 levels with 400, a hundred times, and keeps answering', async () => {
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep-yaml\ndata: ${nestedArrays(10_000)}\n`;
    for (let i = 0; i < 100; i++) {
      const res = await client.request('POST', paths.configMaps(ns), { body, contentType: 'application/yaml' });
      expect(res.status).toBe(400);
      expect(statusOf(res.text).message).toContain('nests more than 1000 levels');
    }
    await expectAlive();
  });

  it('refuses block-style YAML nested past the limit', async () => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: deep-block', 'data:'];
    for (let i = 1; i <= 1200; i++) lines.push(`${' '.repeat(i)}a:`);
    const res = await client.request('POST', paths.configMaps(ns), { body: `${lines.join('\n')} x\n`, contentType: 'application/yaml' });
    expect(res.status).toBe(400);
    await expectAlive();
  });

  it('refuses JSON nested 100,000 levels in a built-in kind and in a custom resource, a hundred times each', async () => {
    const configMapBody = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-json"},"extra":${nestedArrays(100_000)}}`;
    const blobBody = deepBlob('deep-json', 100_000);
    for (let i = 0; i < 100; i++) {
      expect((await client.post(paths.configMaps(ns), configMapBody)).status).toBe(400);
      expect((await client.post(blobs, blobBody)).status).toBe(400);
    }
    expectFailure(await client.get(paths.configMap(ns, 'deep-json')), 404, 'NotFound');
    await expectAlive();
  });

  it('refuses a YAML alias that expands past the limit', async () => {
    const inner = nestedArrays(600);
    const body = `apiVersion: deep.example.com/v1\nkind: Blob\nmetadata:\n  name: alias-deep\nspec:\n  a: &x ${inner}\n  b: ${'['.repeat(600)}*x${']'.repeat(600)}\n`;
    const res = await client.request('POST', blobs, { body, contentType: 'application/yaml' });
    expect(res.status).toBe(400);
  });

  it('serves an object at the limit through create, get, list, watch, every patch type and apply', async () => {
    const created = await client.post<{ metadata: { resourceVersion: string } }>(blobs, deepBlob('at-limit', LIMIT));
    expectStatus(created, 201);
    expect((await client.post(blobs, deepBlob('over-limit', LIMIT + 1))).status).toBe(400);
    expectStatus(await client.get(`${blobs}/at-limit`), 200);
    expectStatus(await client.get(blobs), 200);
    const watch = await client.watch(blobs, { resourceVersion: '0', timeoutSeconds: 5 });
    await watch.waitFor((events) => events.some((e) => (e.object as { metadata?: { name?: string } }).metadata?.name === 'at-limit'));
    watch.close();
    // Merge patch: {"spec":{"deep":[...]}} nests as deep as the object.
    const mergeBody = `{"spec":{"deep":${nestedArrays(LIMIT - 2)}}}`;
    expectStatus(await client.patch(`${blobs}/at-limit`, MERGE_PATCH, mergeBody), 200);
    // JSON patch: the array and the operation object add two levels to the value.
    const jsonBody = `[{"op":"replace","path":"/spec/deep","value":${nestedArrays(LIMIT - 2)}}]`;
    expectStatus(await client.patch(`${blobs}/at-limit`, JSON_PATCH, jsonBody), 200);
    // A JSON patch that puts a value deep inside another one: the body is shallow, the result is not.
    const deeper = `[{"op":"add","path":"/spec/deep${'/0'.repeat(LIMIT - 3)}","value":${nestedArrays(10)}}]`;
    expect((await client.patch(`${blobs}/at-limit`, JSON_PATCH, deeper)).status).toBe(422);
    // Apply, in YAML flow style.
    const applyBody = `apiVersion: deep.example.com/v1\nkind: Blob\nmetadata:\n  name: at-limit\nspec:\n  deep: ${nestedArrays(LIMIT - 2)}\n`;
    expectStatus(await client.patch(`${blobs}/at-limit`, APPLY_PATCH, applyBody, { fieldManager: 'deep', force: true }), 200);
    // Strategic merge patch on a built-in kind, whose unknown fields are dropped.
    expectStatus(await client.post(paths.configMaps(ns), configMap('smp-deep')), 201);
    const smp = await client.patch(paths.configMap(ns, 'smp-deep'), STRATEGIC_MERGE_PATCH, `{"extra":${nestedArrays(LIMIT - 1)}}`);
    expectStatus(smp, 200);
    await expectAlive();
  });
});

describe('custom resource schemas', () => {
  const crdOf = (name: string, levels: number) => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
    return {
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${name}s.nest.example.com` },
      spec: {
        group: 'nest.example.com',
        scope: 'Namespaced',
        names: { plural: `${name}s`, singular: name, kind: name.charAt(0).toUpperCase() + name.slice(1) },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: schema } } } }],
      },
    };
  };

  it('refuses a schema nested deeper than the validator can run, and serves one under the limit', async () => {
    const refused = await client.post('/apis/apiextensions.svc.io/v1/customresourcedefinitions', crdOf('toodeep', 200));
    expect(refused.status).toBe(422);
    expect(statusOf(refused.text).message).toContain('must not nest more than 128 schemas deep');
    expectStatus(await client.post('/apis/apiextensions.svc.io/v1/customresourcedefinitions', crdOf('deepok', 125)), 201);
    let spec: unknown = 'leaf';
    for (let i = 0; i < 125; i++) spec = { a: spec };
    const path = `/apis/nest.example.com/v1/namespaces/${ns}/deepoks`;
    await eventually(async () => expect((await client.get(path)).status).toBe(200), 15_000);
    expectStatus(await client.post(path, { apiVersion: 'nest.example.com/v1', kind: 'Deepok', metadata: { name: 'one' }, spec }), 201);
  });
});

describe('custom resource patterns', () => {
  it('matches a CRD pattern in linear time and refuses patterns RE2 cannot run', async () => {
    const crd = (name: string, pattern: string) => ({
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${name}s.re.example.com` },
      spec: {
        group: 're.example.com',
        scope: 'Namespaced',
        names: { plural: `${name}s`, singular: name, kind: name.charAt(0).toUpperCase() + name.slice(1) },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { v: { type: 'string', pattern } } } } } },
          },
        ],
      },
    });
    const lookahead = await client.post('/apis/apiextensions.svc.io/v1/customresourcedefinitions', crd('ahead', '^(?=a)a$'));
    expect(lookahead.status).toBe(422);
    expectStatus(await client.post('/apis/apiextensions.svc.io/v1/customresourcedefinitions', crd('redos', '^(a+)+$')), 201);
    const path = `/apis/re.example.com/v1/namespaces/${ns}/redoss`;
    await eventually(async () => expect((await client.get(path)).status).toBe(200), 15_000);
    const started = Date.now();
    const res = await client.post(path, { apiVersion: 're.example.com/v1', kind: 'Redos', metadata: { name: 'one' }, spec: { v: `${'a'.repeat(50_000)}!` } });
    expect(res.status).toBe(422);
    expect(Date.now() - started).toBeLessThan(2000);
    expectStatus(await client.post(path, { apiVersion: 're.example.com/v1', kind: 'Redos', metadata: { name: 'two' }, spec: { v: 'aaa' } }), 201);
  });
});

describe('nested maps at the limit', () => {
  it('keeps an object of nested maps at the limit writable by every patch type and apply', async () => {
    const maps = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    // The object, spec and the maps inside: LIMIT levels in all.
    const body = `{"apiVersion":"deep.example.com/v1","kind":"Blob","metadata":{"name":"maps"},"spec":{"deep":${maps(LIMIT - 3)}}}`;
    expectStatus(await client.post(blobs, body), 201);
    expectStatus(await client.patch(`${blobs}/maps`, MERGE_PATCH, { metadata: { labels: { a: 'b' } } }), 200);
    expectStatus(await client.patch(`${blobs}/maps`, JSON_PATCH, [{ op: 'add', path: '/metadata/annotations', value: { n: '1' } }]), 200);
    const apply = `{"apiVersion":"deep.example.com/v1","kind":"Blob","metadata":{"name":"maps"},"spec":{"deep":${maps(LIMIT - 3)}}}`;
    expectStatus(await client.patch(`${blobs}/maps`, APPLY_PATCH, apply, { fieldManager: 'deep', force: true }), 200);
    expectStatus(await client.patch(`${blobs}/maps`, MERGE_PATCH, { metadata: { labels: { a: 'c' } } }), 200);
    expectStatus(await client.get(`${blobs}/maps`), 200);
    await expectAlive();
  });
});

describe('a definition being deleted', () => {
  it('keeps its objects served but for create, so their finalizers can go, and then goes', async () => {
    const crd = {
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'keeps.fin.example.com' },
      spec: {
        group: 'fin.example.com',
        scope: 'Namespaced',
        names: { plural: 'keeps', singular: 'keep', kind: 'Keep' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-svc-preserve-unknown-fields': true } } }],
      },
    };
    const crdPath = '/apis/apiextensions.svc.io/v1/customresourcedefinitions/keeps.fin.example.com';
    expectStatus(await client.post('/apis/apiextensions.svc.io/v1/customresourcedefinitions', crd), 201);
    const keeps = `/apis/fin.example.com/v1/namespaces/${ns}/keeps`;
    await eventually(async () => expect((await client.get(keeps)).status).toBe(200), 15_000);
    expectStatus(
      await client.post(keeps, { apiVersion: 'fin.example.com/v1', kind: 'Keep', metadata: { name: 'held', finalizers: ['example.com/hold'] } }),
      201,
    );
    expectStatus(await client.delete(crdPath), 200);
    // Terminating: a create is refused; the object with a finalizer stays readable.
    await eventually(
      async () => expect((await client.get<{ metadata?: { deletionTimestamp?: string } }>(crdPath)).body.metadata?.deletionTimestamp).toBeDefined(),
      15_000,
    );
    await eventually(
      async () => expect((await client.post(keeps, { apiVersion: 'fin.example.com/v1', kind: 'Keep', metadata: { name: 'late' } })).status).toBe(405),
      15_000,
    );
    expectStatus(await client.get(`${keeps}/held`), 200);
    const discovery = await client.get('/apis');
    expect(JSON.stringify(discovery.body)).not.toContain('fin.example.com');
    expectStatus(await client.patch(`${keeps}/held`, MERGE_PATCH, { metadata: { finalizers: null } }), 200);
    await eventually(async () => expect((await client.get(crdPath)).status).toBe(404), 15_000);
    expectFailure(await client.get(keeps), 404, 'NotFound');
  });
});

describe('amplification', () => {
  it('refuses JSON patch copies that would grow the object past the request limit, at once, a hundred times', async () => {
    expectStatus(await client.post(paths.configMaps(ns), configMap('copies', { seed: 'x'.repeat(1024) })), 201);
    const ops = [{ op: 'add', path: '/data/a', value: 'y'.repeat(1024) }];
    for (let i = 0; i < 20; i++) ops.push({ op: 'copy', from: '/data', path: `/data/copy${i}` } as never);
    const body = JSON.stringify(ops);
    for (let i = 0; i < 100; i++) {
      const started = Date.now();
      const res = await client.patch(paths.configMap(ns, 'copies'), JSON_PATCH, body);
      expect(res.status).toBe(422);
      expect(statusOf(res.text).message).toContain('accumulated size increase of copy');
      expect(Date.now() - started).toBeLessThan(1000);
    }
    const after = await client.get<ConfigMap>(paths.configMap(ns, 'copies'));
    expect(Object.keys(after.body.data ?? {})).toEqual(['seed']);
    await expectAlive();
  });

  it('refuses a JSON patch of more than 10,000 operations with 413', async () => {
    const ops = Array.from({ length: 20_000 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }));
    const res = await client.patch(paths.configMap(ns, 'copies'), JSON_PATCH, ops);
    expect(res.status).toBe(413);
    expect(statusOf(res.text).message).toBe('The allowed maximum operations in a JSON patch is 10000, got 20000');
  });

  it('refuses a YAML alias bomb with 400, a hundred times', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`);
    }
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\n${levels.map((l) => `x${l}`).join('\n')}\n`;
    for (let i = 0; i < 100; i++) {
      const res = await client.request('POST', paths.configMaps(ns), { body, contentType: 'application/yaml' });
      expect(res.status).toBe(400);
    }
    await expectAlive();
  });

  it('decodes a 3 MB YAML body without holding the event loop', async () => {
    // Most of it is an unknown field, dropped once decoded: the decoding is what is measured.
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: big-yaml', 'data:', '  a: b', 'extra:'];
    let size = 0;
    for (let i = 0; size < 2.9 * 1024 * 1024; i++) {
      const line = `  key${i}: "value number ${i} with some text"`;
      lines.push(line);
      size += line.length + 1;
    }
    const probes: number[] = [];
    let sending = true;
    const probing = (async () => {
      while (sending) {
        const started = Date.now();
        await httpsFetch(`${server.url}/readyz`, { ca: server.ca });
        probes.push(Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const res = await client.request('POST', paths.configMaps(ns), { body: lines.join('\n'), contentType: 'application/yaml' });
    sending = false;
    await probing;
    expectStatus(res, 201);
    expect(probes.length).toBeGreaterThan(2);
    expect(Math.max(...probes)).toBeLessThan(1000);
  });

  it("merges a strategic patch of a long keyed list (linear time: see the patch library's test)", async () => {
    const env = Array.from({ length: 12_000 }, (_, i) => ({ name: `E${i}`, value: '' }));
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'long-env' },
      spec: { containers: [{ name: 'app', image: 'registry.example/app:1.0', env }] },
    };
    expectStatus(await client.post(paths.pods(ns), pod), 201);
    const patch = { spec: { containers: [{ name: 'app', env: Array.from({ length: 20_000 }, (_, i) => ({ name: `F${i}`, value: '' })) }] } };
    const res = await client.patch(paths.pod(ns, 'long-env'), STRATEGIC_MERGE_PATCH, patch, { dryRun: 'All' });
    expect(res.status).toBeLessThan(500);
    await expectAlive();
  });
});

describe('stored text', () => {
  it('replaces a lone UTF-16 surrogate with U+FFFD, so every reader gets well-formed text', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"surrogate","annotations":{"\\udc00":"v"}},"data":{"k":"a\\ud800b"}}';
    // The key is now U+FFFD, which no annotation key may hold: refused, as Kubernetes refuses it.
    expect((await client.post(paths.configMaps(ns), body)).status).toBe(422);
    const res = await client.post<ConfigMap>(paths.configMaps(ns), body.replace(',"annotations":{"\\udc00":"v"}', ''));
    expectStatus(res, 201);
    expect(res.body.data).toEqual({ k: 'a\uFFFDb' });
    const list = await client.get(paths.configMaps(ns));
    expect(list.text).not.toMatch(/\\ud[89a-f]/i);
    const yaml = await client.request<ConfigMap>('POST', paths.configMaps(ns), {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: surrogate-yaml\ndata:\n  k: "\\ud800"\n',
      contentType: 'application/yaml',
    });
    expectStatus(yaml, 201);
    expect(yaml.body.data).toEqual({ k: '\uFFFD' });
  });

  it("folds a Secret's stringData into data and never stores or returns it", async () => {
    const secretPath = `/api/v1/namespaces/${ns}/secrets`;
    const created = await client.post<Secret>(secretPath, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'plain' },
      data: { a: Buffer.from('old').toString('base64'), b: Buffer.from('kept').toString('base64') },
      stringData: { a: 'stringdata-value-one' },
    });
    expectStatus(created, 201);
    expect(created.body.stringData).toBeUndefined();
    expect(created.body.data).toEqual({ a: Buffer.from('stringdata-value-one').toString('base64'), b: Buffer.from('kept').toString('base64') });
    const patched = await client.patch<Secret>(`${secretPath}/plain`, MERGE_PATCH, { stringData: { c: 'stringdata-value-two' } });
    expectStatus(patched, 200);
    expect(patched.body.stringData).toBeUndefined();
    expect(patched.body.data?.c).toBe(Buffer.from('stringdata-value-two').toString('base64'));
    const got = await client.get<Secret>(`${secretPath}/plain`);
    expect(got.body.stringData).toBeUndefined();
    const dataDir = join(server.dir, 'data');
    for (const file of await readdir(dataDir)) {
      const content = await readFile(join(dataDir, file));
      expect(content.includes('stringdata-value')).toBe(false);
    }
  });
});

describe('parameters and transport', () => {
  it('refuses a malformed timeoutSeconds on a list with 400', async () => {
    expectFailure(await client.get(paths.configMaps(ns), { timeoutSeconds: 'abc' }), 400, 'BadRequest');
  });

  it('ends a watch with a negative timeoutSeconds at once', async () => {
    const started = Date.now();
    const watch = await client.watch(paths.configMaps(ns), { timeoutSeconds: -5 });
    await eventually(async () => expect(watch.ended).toBe(true), 3000);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('keeps a watch asking for a very long timeout open', async () => {
    const watch = await client.watch(paths.configMaps(ns), { timeoutSeconds: 9_000_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(watch.ended).toBe(false);
    watch.close();
  });

  it('answers plain HTTP on the HTTPS port with 400', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.0 400 Bad Request\r\n/);
    expect(answer).toContain('Client sent an HTTP request to an HTTPS server.');
    await expectAlive();
  });

  it('answers a 64 KiB request path with 431 and a Status body', async () => {
    const res = await httpsFetch(`${server.url}/api/v1/namespaces/${'a'.repeat(64 * 1024)}`, { ca: server.ca });
    expect(res.status).toBe(431);
    expect(statusOf(res.body).code).toBe(431);
    await expectAlive();
  });
});

describe('many errors and warnings', () => {
  it('answers a body with 250,000 unknown fields and 200,000 bad keys with a 4xx and bounded warnings', async () => {
    const fields = Array.from({ length: 250_000 }, (_, i) => `"u${i}":1`).join(',');
    const res = await client.post<ConfigMap>(paths.configMaps(ns), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"many-unknown"},${fields}}`);
    expectStatus(res, 201);
    const warning = res.headers.warning;
    const values = warning === undefined ? [] : Array.isArray(warning) ? warning : [warning];
    expect(values.join(', ').length).toBeLessThan(64 * 1024);
    const keys = Array.from({ length: 200_000 }, (_, i) => `"k ${i}":""`).join(',');
    const bad = await client.post(paths.configMaps(ns), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"many-bad"},"data":{${keys}}}`);
    expect(bad.status).toBe(422);
    await expectAlive();
  });
});

describe('found by fuzzing', () => {
  it('skips Accept entries with no media range instead of failing', async () => {
    const res = await client.request('GET', paths.configMaps(ns), { headers: { Accept: ';' } });
    expect(res.status).toBe(406);
    expect((await client.request('GET', paths.configMaps(ns), { headers: { Accept: ';;;, application/json' } })).status).toBe(200);
  });

  it("checks a watch's limit and a deletecollection's timeoutSeconds", async () => {
    expectFailure(await client.get(paths.configMaps(ns), { watch: 1, limit: 'abc' }), 400, 'BadRequest');
    expectFailure(await client.delete(`${paths.configMaps(ns)}?labelSelector=none%3Dnone&timeoutSeconds=abc`), 400, 'BadRequest');
  });

  it('answers a method the parser does not know with 405 and a Status', async () => {
    const res = await httpsFetch(`${server.url}${paths.configMaps(ns)}`, { ca: server.ca, method: 'FOO' });
    expect(res.status).toBe(405);
    expect(statusOf(res.body).code).toBe(405);
  });

  it('keeps a living namespace Active: its status phase follows the deletion mark', async () => {
    await createNamespace(client, 'phase-check');
    const res = await client.patch('/api/v1/namespaces/phase-check/status', MERGE_PATCH, { status: { phase: 'Terminating' } });
    expect(res.status).toBe(422);
    expectStatus(await client.post(paths.configMaps('phase-check'), configMap('still-ok')), 201);
  });

  it('answers a field of the wrong type with 400, never running the kind rules on it', async () => {
    for (const webhooks of [{}, 'x', 7]) {
      const body = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'wrong-type' }, webhooks };
      expectFailure(await client.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', body), 400, 'BadRequest');
    }
  });

  it('answers a mistyped field that a write step reads before validation with 400, not 500', async () => {
    expectStatus(await client.post(paths.configMaps(ns), { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } }), 201);
    expectStatus(await client.delete(paths.configMap(ns, 'held')), 200);
    for (const finalizers of [{ x: 1 }, 7]) {
      expectFailure(await client.patch(paths.configMap(ns, 'held'), MERGE_PATCH, { metadata: { finalizers } }), 400, 'BadRequest');
    }
    expectStatus(await client.patch(paths.configMap(ns, 'held'), MERGE_PATCH, { metadata: { finalizers: null } }), 200);
  });

  it('answers a CRD whose schema names a property with null with a 400 naming it, not 500', async () => {
    const body = {
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'nulls.fuzz.example.com' },
      spec: {
        group: 'fuzz.example.com',
        scope: 'Namespaced',
        names: { plural: 'nulls', singular: 'null', kind: 'Null', listKind: 'NullList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: null } } } }],
      },
    };
    for (const group of ['apiextensions.svc.io', 'apiextensions.k8s.io']) {
      const res = await client.post(`/apis/${group}/v1/customresourcedefinitions`, body);
      expectFailure(res, 400, 'BadRequest');
      expect(statusOf(res.text).message).toContain('properties[spec]: Invalid value: null: must be an object');
    }
  });

  it('refuses an applied configuration whose name is empty', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ""\ndata:\n  a: b\n';
    expect((await client.patch(paths.configMap(ns, 'applied'), APPLY_PATCH, body, { fieldManager: 'x' })).status).toBe(400);
  });
});
